import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { BadRequest, NotFound, Unavailable } from "../../model/Errors.ts"
import { seal } from "../../platform/Crypto.ts"
import { VoiceCatalog, type VoiceRegion, type VoiceServer, voiceSecretKey } from "../../platform/VoiceCatalog.ts"
import type { CreateVoiceRegionRequest, CreateVoiceServerRequest, UpdateVoiceRegionRequest, UpdateVoiceServerRequest } from "./Api.ts"

export const unknownRegion = () => new NotFound({ code: "UNKNOWN_VOICE_REGION", message: "Unknown voice region" })
export const unknownServer = () => new NotFound({ code: "UNKNOWN_VOICE_SERVER", message: "Unknown voice server" })
const taken = (what: string) => new BadRequest({ code: "CONFLICT", message: `A voice ${what} with this id already exists` })
const noKey = () =>
  new Unavailable({ code: "FEATURE_TEMPORARILY_DISABLED", message: "Voice servers need VOICE_SECRET_KEY set to keep their API secrets" })

type VoiceError = BadRequest | NotFound | Unavailable

/**
 * The operators' writes to voice regions and servers (reads are the catalog's,
 * VoiceCatalog.ts, shared with the gateway). A region made the default stops
 * any other being one, in the same transaction. Secrets are sealed before they
 * reach Postgres.
 */
export class VoiceAdminRepo extends Context.Service<VoiceAdminRepo, {
  readonly createRegion: (r: CreateVoiceRegionRequest) => Effect.Effect<VoiceRegion, VoiceError>
  readonly updateRegion: (r: UpdateVoiceRegionRequest) => Effect.Effect<VoiceRegion, VoiceError>
  /** Its servers go with it. */
  readonly deleteRegion: (id: string) => Effect.Effect<void, VoiceError>
  readonly createServer: (s: CreateVoiceServerRequest) => Effect.Effect<VoiceServer, VoiceError>
  readonly updateServer: (s: UpdateVoiceServerRequest) => Effect.Effect<VoiceServer, VoiceError>
  readonly deleteServer: (regionId: string, serverId: string) => Effect.Effect<void, VoiceError>
}>()("guildhall/VoiceAdminRepo") {
  static readonly layer = Layer.effect(
    VoiceAdminRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const catalog = yield* VoiceCatalog
      const key = yield* voiceSecretKey

      /** A text[] column from a list (null keeps the column as it is). */
      const list = (values: ReadonlyArray<string> | undefined) =>
        values === undefined ? sql`NULL::text[]` : sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`
      const sealed = (secret: string) => Option.match(key, { onNone: () => Effect.fail(noKey()), onSome: (k) => Effect.succeed(seal(k, secret)) })
      const clearDefaults = (except: string) => sql`UPDATE voice_regions SET is_default = false, updated_at = now() WHERE is_default AND id <> ${except}`
      const region = (id: string) => Effect.flatMap(catalog.region(id), (r) => r === undefined ? Effect.fail(unknownRegion()) : Effect.succeed(r))
      const server = (regionId: string, serverId: string) =>
        Effect.flatMap(catalog.server(regionId, serverId), (s) => s === undefined ? Effect.fail(unknownServer()) : Effect.succeed(s))
      const transaction = <A, E>(effect: Effect.Effect<A, E, never>) =>
        sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))

      return VoiceAdminRepo.of({
        createRegion: (r) =>
          transaction(Effect.gen(function*() {
            // Before the insert: the index keeps one default at a time. A refused create rolls this back.
            if (r.is_default === true) yield* clearDefaults(r.id)
            const rows = yield* sql`
              INSERT INTO voice_regions (id, name, emoji, latitude, longitude, is_default, vip_only,
                                         required_guild_features, allowed_guild_ids, allowed_user_ids)
              VALUES (${r.id}, ${r.name}, ${r.emoji}, ${r.latitude}, ${r.longitude}, ${r.is_default ?? false}, ${r.vip_only ?? false},
                      COALESCE(${list(r.required_guild_features)}, '{}'), COALESCE(${list(r.allowed_guild_ids)}, '{}'),
                      COALESCE(${list(r.allowed_user_ids)}, '{}'))
              ON CONFLICT (id) DO NOTHING RETURNING id`
            if (rows.length === 0) return yield* taken("region")
            return yield* region(r.id)
          })),
        updateRegion: (r) =>
          transaction(Effect.gen(function*() {
            if (r.is_default === true) yield* clearDefaults(r.id)
            const rows = yield* sql`
              UPDATE voice_regions SET
                name = COALESCE(${r.name ?? null}, name),
                emoji = COALESCE(${r.emoji ?? null}, emoji),
                latitude = COALESCE(${r.latitude ?? null}::float8, latitude),
                longitude = COALESCE(${r.longitude ?? null}::float8, longitude),
                is_default = COALESCE(${r.is_default ?? null}::boolean, is_default),
                vip_only = COALESCE(${r.vip_only ?? null}::boolean, vip_only),
                required_guild_features = COALESCE(${list(r.required_guild_features)}, required_guild_features),
                allowed_guild_ids = COALESCE(${list(r.allowed_guild_ids)}, allowed_guild_ids),
                allowed_user_ids = COALESCE(${list(r.allowed_user_ids)}, allowed_user_ids),
                updated_at = now()
              WHERE id = ${r.id} RETURNING id`
            if (rows.length === 0) return yield* unknownRegion()
            return yield* region(r.id)
          })),
        deleteRegion: (id) =>
          sql`DELETE FROM voice_regions WHERE id = ${id} RETURNING id`.pipe(
            Effect.orDie,
            Effect.flatMap((rows) => rows.length === 0 ? Effect.fail(unknownRegion()) : Effect.void)
          ),
        createServer: (s) =>
          Effect.gen(function*() {
            const secret = yield* sealed(s.api_secret)
            yield* region(s.region_id)
            const rows = yield* sql`
              INSERT INTO voice_servers (region_id, server_id, endpoint, api_key, api_secret_sealed, is_active, vip_only,
                                         required_guild_features, allowed_guild_ids, allowed_user_ids)
              VALUES (${s.region_id}, ${s.server_id}, ${s.endpoint}, ${s.api_key}, ${secret}, ${s.is_active ?? true}, ${s.vip_only ?? false},
                      COALESCE(${list(s.required_guild_features)}, '{}'), COALESCE(${list(s.allowed_guild_ids)}, '{}'),
                      COALESCE(${list(s.allowed_user_ids)}, '{}'))
              ON CONFLICT (region_id, server_id) DO NOTHING RETURNING server_id`.pipe(Effect.orDie)
            if (rows.length === 0) return yield* taken("server")
            return yield* server(s.region_id, s.server_id)
          }),
        updateServer: (s) =>
          Effect.gen(function*() {
            const secret = s.api_secret === undefined ? null : yield* sealed(s.api_secret)
            const rows = yield* sql`
              UPDATE voice_servers SET
                endpoint = COALESCE(${s.endpoint ?? null}, endpoint),
                api_key = COALESCE(${s.api_key ?? null}, api_key),
                api_secret_sealed = COALESCE(${secret}::bytea, api_secret_sealed),
                is_active = COALESCE(${s.is_active ?? null}::boolean, is_active),
                vip_only = COALESCE(${s.vip_only ?? null}::boolean, vip_only),
                required_guild_features = COALESCE(${list(s.required_guild_features)}, required_guild_features),
                allowed_guild_ids = COALESCE(${list(s.allowed_guild_ids)}, allowed_guild_ids),
                allowed_user_ids = COALESCE(${list(s.allowed_user_ids)}, allowed_user_ids),
                updated_at = now()
              WHERE region_id = ${s.region_id} AND server_id = ${s.server_id} RETURNING server_id`.pipe(Effect.orDie)
            if (rows.length === 0) return yield* unknownServer()
            return yield* server(s.region_id, s.server_id)
          }),
        deleteServer: (regionId, serverId) =>
          sql`DELETE FROM voice_servers WHERE region_id = ${regionId} AND server_id = ${serverId} RETURNING server_id`.pipe(
            Effect.orDie,
            Effect.flatMap((rows) => rows.length === 0 ? Effect.fail(unknownServer()) : Effect.void)
          )
      })
    })
  )
}
