import { Config, Context, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import type { RegionRule } from "../model/RtcRegions.ts"
import { unseal } from "./Crypto.ts"
import { isoTimestamp } from "./Timestamps.ts"

/**
 * VOICE_SECRET_KEY: the 32-byte key (64 hex digits, or base64) that seals media
 * servers' API secrets in Postgres. Without it no server can be added, and
 * none is handed to clients.
 */
export const voiceSecretKey: Config.Config<Option.Option<Buffer>> = Config.Redacted("VOICE_SECRET_KEY").pipe(
  Config.mapEffect((secret) => {
    const text = Redacted.value(secret).trim()
    const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : Buffer.from(text, "base64")
    return key.length === 32
      ? Effect.succeed(key)
      : Effect.fail(new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({
        message: "VOICE_SECRET_KEY must be 32 bytes: 64 hex digits or base64"
      }))))
  }),
  Config.option
)

/** A configured region (VoiceRegionAdminResponse). */
export interface VoiceRegion extends RegionRule {
  readonly latitude: number
  readonly longitude: number
  readonly created_at: string
  readonly updated_at: string
}

/** A configured media server (VoiceServerAdminResponse): its secret is never part of it. */
export interface VoiceServer {
  readonly region_id: string
  readonly server_id: string
  readonly endpoint: string
  readonly is_active: boolean
  readonly vip_only: boolean
  readonly required_guild_features: ReadonlyArray<string>
  readonly allowed_guild_ids: ReadonlyArray<string>
  readonly allowed_user_ids: ReadonlyArray<string>
  readonly created_at: string
  readonly updated_at: string
}

/** A server as the gateway signs for it: with its key and opened secret. */
export interface VoiceServerCredentials extends VoiceServer {
  readonly api_key: string
  readonly api_secret: string
}

interface RegionRow {
  readonly id: string
  readonly name: string
  readonly emoji: string
  readonly latitude: number
  readonly longitude: number
  readonly is_default: boolean
  readonly vip_only: boolean
  readonly required_guild_features: ReadonlyArray<string>
  readonly allowed_guild_ids: ReadonlyArray<string>
  readonly allowed_user_ids: ReadonlyArray<string>
  readonly created_at: Date | string
  readonly updated_at: Date | string
}

interface ServerRow {
  readonly region_id: string
  readonly server_id: string
  readonly endpoint: string
  readonly api_key: string
  readonly api_secret_sealed: Uint8Array
  readonly is_active: boolean
  readonly vip_only: boolean
  readonly required_guild_features: ReadonlyArray<string>
  readonly allowed_guild_ids: ReadonlyArray<string>
  readonly allowed_user_ids: ReadonlyArray<string>
  readonly created_at: Date | string
  readonly updated_at: Date | string
}

const regionOf = (row: RegionRow): VoiceRegion => ({
  ...row,
  latitude: Number(row.latitude),
  longitude: Number(row.longitude),
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at)
})

const serverOf = ({ api_key: _key, api_secret_sealed: _secret, ...row }: ServerRow): VoiceServer => ({
  ...row,
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at)
})

/**
 * The voice regions and servers operators configured, read from Postgres by
 * whichever process asks (API, gateway): the rtc_region checks, the region
 * list a channel offers and the gateway's choice of server on a voice join.
 * Read each time: a few rows, and an operator's change holds everywhere at once.
 */
export class VoiceCatalog extends Context.Service<VoiceCatalog, {
  /** Every region, by id. */
  readonly regions: Effect.Effect<ReadonlyArray<VoiceRegion>>
  readonly region: (id: string) => Effect.Effect<VoiceRegion | undefined>
  /** The servers of a region, by id. */
  readonly servers: (regionId: string) => Effect.Effect<ReadonlyArray<VoiceServer>>
  readonly server: (regionId: string, serverId: string) => Effect.Effect<VoiceServer | undefined>
  /** The active servers of a region with their credentials; those whose secret does not open under the key are left out. */
  readonly activeCredentials: (regionId: string) => Effect.Effect<ReadonlyArray<VoiceServerCredentials>>
  /** Whether some region has an active server and VOICE_SECRET_KEY is set: a join can then be given a server. */
  readonly anyActive: Effect.Effect<boolean>
}>()("guildhall/VoiceCatalog") {
  static readonly layer = Layer.effect(
    VoiceCatalog,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const key = yield* voiceSecretKey
      const regionRows = (where: Fragment) =>
        sql<RegionRow>`SELECT * FROM voice_regions ${where} ORDER BY id`.pipe(Effect.map((rows) => rows.map(regionOf)), Effect.orDie)
      const serverRows = (where: Fragment) =>
        sql<ServerRow>`SELECT * FROM voice_servers ${where} ORDER BY region_id, server_id`.pipe(Effect.orDie)

      return VoiceCatalog.of({
        anyActive: Option.isNone(key)
          ? Effect.succeed(false)
          : sql`SELECT 1 FROM voice_servers WHERE is_active LIMIT 1`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),
        regions: regionRows(sql``),
        region: (id) => Effect.map(regionRows(sql`WHERE id = ${id}`), (rows) => rows[0]),
        servers: (regionId) => Effect.map(serverRows(sql`WHERE region_id = ${regionId}`), (rows) => rows.map(serverOf)),
        server: (regionId, serverId) =>
          Effect.map(serverRows(sql`WHERE region_id = ${regionId} AND server_id = ${serverId}`), (rows) => rows.map(serverOf)[0]),
        activeCredentials: (regionId) =>
          Effect.flatMap(serverRows(sql`WHERE region_id = ${regionId} AND is_active`), (rows) => {
            if (Option.isNone(key)) return Effect.succeed([])
            const opened = rows.map((row) => ({ row, secret: unseal(key.value, row.api_secret_sealed) }))
            const unreadable = opened.filter((o) => o.secret === undefined).map((o) => `${o.row.region_id}/${o.row.server_id}`)
            const usable = opened.flatMap(({ row, secret }) =>
              secret === undefined ? [] : [{ ...serverOf(row), api_key: row.api_key, api_secret: secret }])
            // A changed VOICE_SECRET_KEY leaves older secrets sealed under the old one: the operator sets them again.
            return unreadable.length === 0
              ? Effect.succeed(usable)
              : Effect.as(Effect.logWarning("voice servers skipped: their API secret does not open under VOICE_SECRET_KEY", unreadable), usable)
          })
      })
    })
  )
}
