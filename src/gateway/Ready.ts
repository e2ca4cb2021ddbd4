import { Effect, Schema } from "effect"
import { DmsRepo } from "../dms/Repo.ts"
import { ReadStatesRepo } from "../messages/readStates/Repo.ts"
import { MessageVisibility } from "../messages/Visibility.ts"
import { Actors } from "../guilds/Actors.ts"
import { RelationshipResponse, RelationshipType } from "../model/Relationships.ts"
import { UserSettingsResponse } from "../model/Settings.ts"
import { UserPrivateResponse } from "../model/Users.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { readyState } from "../../shards/user/operations/Ready.ts"
import { guildCreate } from "./Fanout.ts"
import { Presences } from "./Presence.ts"
import { API_VERSION } from "./Protocol.ts"
import { GatewayRegistry } from "./Registry.ts"
import { VoiceStates } from "./VoiceStates.ts"
import type { Identity } from "./ConnectionState.ts"
import type { Dispatch } from "../model/Dispatch.ts"
import type { GatewaySession } from "./Session.ts"

const VIEWS_AT_ONCE = 16

const encodeUser = Schema.encodeEffect(UserPrivateResponse)
const encodeRelationships = Schema.encodeEffect(Schema.Array(RelationshipResponse))
const encodeSettings = Schema.encodeEffect(UserSettingsResponse)

/** READY's `presences`: the friends who show as online (JSON each, spliced in). */
const withPresences = (json: string, online: ReadonlyArray<string>) => `${json.slice(0, -1)},"presences":[${online.join(",")}]}`

/**
 * The channels the user may read, for counting mentions in those they never
 * opened. A guild that cannot answer now (its actor restarting) would fail the
 * whole list: READY goes out without those counts rather than not at all, as
 * it goes out without that guild's GUILD_CREATE.
 */
const readableNow = (visibility: MessageVisibility["Service"], userId: string, guildIds: ReadonlyArray<string>) =>
  visibility.readable(userId, guildIds).pipe(
    Effect.catch((error) => Effect.as(Effect.logWarning("gateway: READY without role and @everyone mention counts", error), []))
  )

/**
 * Prepares a new session: registers it, makes it listen to the user's guilds,
 * then sends READY (the user, their guilds as unavailable stubs, relationships,
 * settings, read states, the session id, a bot's application) and one GUILD_CREATE per guild. Events of those
 * guilds that come meanwhile follow them, in order (GatewaySession.hold).
 */
export const makeReady = Effect.gen(function*() {
  const registry = yield* GatewayRegistry
  const actors = yield* Actors
  const userActors = yield* UserActors
  const dms = yield* DmsRepo
  const readStates = yield* ReadStatesRepo
  const visibility = yield* MessageVisibility
  const presences = yield* Presences
  const voices = yield* VoiceStates

  return (session: GatewaySession, identity: Identity, resumeUrl: string) =>
    Effect.gen(function*() {
      const { userId } = session
      session.hold()
      yield* registry.open(session)
      const own = yield* userActors.read(userId, readyState, {})
      const guildIds = own.guild_ids
      yield* Effect.forEach(guildIds, (id) => registry.join(session, id), { discard: true })
      const [user, friends, userSettings, reads] = yield* Effect.all([
        encodeUser(own.user),
        encodeRelationships(own.relationships),
        encodeSettings(own.user_settings),
        Effect.flatMap(readableNow(visibility, userId, guildIds), (readable) => readStates.listFor(userId, readable))
      ], { concurrency: "unbounded" })
      const online = presences.of(friends.filter((r) => r.type === RelationshipType.friend).map((r) => r.id))
      const ready: Dispatch = {
        type: "READY",
        data: withPresences(JSON.stringify({
          v: Number(API_VERSION),
          user,
          guilds: guildIds.map((id) => ({ id, unavailable: true })),
          private_channels: yield* dms.listFor(userId),
          relationships: friends,
          user_settings: userSettings,
          read_state: { version: 1, partial: false, entries: reads },
          session_id: session.id,
          resume_gateway_url: resumeUrl,
          ...(identity.applicationId === undefined ? {} : { application: { id: identity.applicationId, flags: 0 } })
        }), online)
      }
      const creates = yield* Effect.forEach(guildIds, (id) => guildCreate(actors, presences, voices, id, session), {
        concurrency: VIEWS_AT_ONCE
      })
      session.release([ready, ...creates.flat()])
    }).pipe(Effect.onError(() => registry.close(session)))
})
