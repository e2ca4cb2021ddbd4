import { Context, Effect, Layer, Schema } from "effect"
import { LiveActors } from "../../shards/LiveActors.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { listGuilds } from "../../shards/user/operations/Guilds.ts"
import { listFriendIds } from "../../shards/user/operations/Relationships.ts"
import { PresenceRoutes } from "./PresenceRoutes.ts"
import { GatewayRegistry } from "./Registry.ts"
import type { GatewaySession } from "./Session.ts"
import { UserEvents } from "../../shards/UserEvents.ts"

/** Op 3's data, and IDENTIFY's `presence` (conventions.md, Gateway). */
export const PresenceUpdate = Schema.Struct({
  since: Schema.optional(Schema.NullOr(Schema.Number)),
  activities: Schema.optional(Schema.NullOr(Schema.Array(Schema.Unknown))),
  status: Schema.Literals(["online", "idle", "dnd", "invisible", "offline"]),
  afk: Schema.optional(Schema.NullOr(Schema.Boolean))
})
export type PresenceUpdate = typeof PresenceUpdate.Type
export const decodePresenceUpdate = Schema.decodeUnknownOption(PresenceUpdate)

/** How a user shows to others: invisible shows as offline. */
interface Shown {
  readonly status: "online" | "idle" | "dnd" | "offline"
  readonly activities: ReadonlyArray<unknown>
}

const OFFLINE: Shown = { status: "offline", activities: [] }

/** Guilds a user may be in at most (Ready.ts asks for as many). */
const MAX_GUILDS = 200

const shownOf = (update: PresenceUpdate): Shown => ({
  status: update.status === "invisible" ? "offline" : update.status,
  activities: update.status === "invisible" ? [] : update.activities ?? []
})

/** The presence object of PRESENCE_UPDATE, READY and GUILD_CREATE. */
const presenceJson = (userId: string, shown: Shown, guildId?: string) =>
  JSON.stringify({
    user: { id: userId },
    ...(guildId === undefined ? {} : { guild_id: guildId }),
    status: shown.status,
    activities: shown.activities,
    client_status: shown.status === "offline" ? {} : { desktop: shown.status }
  })

/**
 * The presences of the users connected to this process. A user's status is
 * the one their last update set, for all their sessions (clients keep it in
 * step); their last session closing, on every process (PresenceRoutes.ts),
 * makes them offline. A change others can see goes to the sessions of every
 * guild the user is in (those that asked for GUILD_PRESENCES) and to their
 * friends' sessions (UserEvents.ts), on whatever process they are connected.
 */
export class Presences extends Context.Service<Presences, {
  /** A session's client set its status (IDENTIFY's presence, or op 3). */
  readonly update: (session: GatewaySession, update: PresenceUpdate) => Effect.Effect<void>
  /** The presences of the guild's members who show as online (JSON each), but `except`'s. */
  readonly inGuild: (guildId: string, except: string) => ReadonlyArray<string>
  /** Of these users, those who show as online, as presence JSON. */
  readonly of: (userIds: Iterable<string>, guildId?: string) => ReadonlyArray<string>
}>()("guildhall/Presences") {
  static readonly layer = Layer.effect(
    Presences,
    Effect.gen(function*() {
      const registry = yield* GatewayRegistry
      const live = yield* LiveActors
      const routes = yield* PresenceRoutes
      const userEvents = yield* UserEvents
      const userActors = yield* UserActors
      const users = new Map<string, PresenceUpdate>()
      const shown = (userId: string): Shown => {
        const update = users.get(userId)
        return update === undefined ? OFFLINE : shownOf(update)
      }

      const announce = (userId: string, now: Shown) =>
        Effect.gen(function*() {
          const guildIds = new Set<string>()
          for (const session of registry.ofUser(userId)) for (const id of session.guilds) guildIds.add(id)
          return yield* announceTo(userId, now, guildIds)
        })

      const announceTo = (userId: string, now: Shown, guildIds: ReadonlySet<string>) =>
        Effect.gen(function*() {
          yield* routes.toGuilds(userId, [...guildIds].map((guildId) => ({
            guildId,
            dispatch: { type: "PRESENCE_UPDATE", data: presenceJson(userId, now, guildId) }
          })))
          const friends = yield* userActors.read(userId, listFriendIds, {}).pipe(
            Effect.catch((error) => Effect.as(Effect.logWarning("gateway presences: a presence not told to friends", error), []))
          )
          if (friends.length === 0) return
          yield* userEvents.publish(friends, { type: "PRESENCE_UPDATE", data: presenceJson(userId, now) })
        })

      const track = (userId: string, update: PresenceUpdate | undefined) => {
        if (update === undefined || update.status === "offline" || update.status === "invisible") live.presences.delete(userId)
        else live.presences.add(userId)
        if (update === undefined) users.delete(userId)
        else users.set(userId, update)
      }

      // The user's last session here is gone: unless another process holds one, they go offline, told to the guilds that session was in.
      registry.onClose((session) =>
        Effect.gen(function*() {
          if (registry.ofUser(session.userId).size > 0) return
          const before = shown(session.userId)
          track(session.userId, undefined)
          const gone = yield* routes.disconnected(session.userId)
          if (gone && before.status !== "offline") yield* announceTo(session.userId, OFFLINE, session.guilds)
        })
      )

      // Users whose sessions were all on a process that stopped: nobody saw them leave, so this process tells.
      // The ids of abandoned users come from our own presence records.
      const abandon = (userId: string) =>
        userActors.read(userId, listGuilds, { limit: MAX_GUILDS }).pipe(
          Effect.flatMap((guildIds) => announceTo(userId, OFFLINE, new Set(guildIds))),
          Effect.catchCause((cause) => Effect.logWarning("gateway presences: an abandoned user was not announced offline", cause))
        )
      yield* routes.abandoned.pipe(
        Effect.flatMap((userIds) => Effect.forEach(userIds.filter((id) => registry.ofUser(id).size === 0), abandon, { discard: true })),
        Effect.forever,
        Effect.forkScoped
      )

      return Presences.of({
        update: Effect.fn("Presences.update")((session, update) => {
          const first = !users.has(session.userId)
          const before = JSON.stringify(shown(session.userId))
          track(session.userId, update)
          const now = shown(session.userId)
          return Effect.andThen(
            first ? routes.connected(session.userId) : Effect.void,
            JSON.stringify(now) === before ? Effect.void : announce(session.userId, now)
          )
        }),
        inGuild: (guildId, except) => {
          const seen = new Set<string>([except])
          const out: Array<string> = []
          for (const session of registry.inGuild(guildId)) {
            if (seen.has(session.userId)) continue
            seen.add(session.userId)
            const now = shown(session.userId)
            if (now.status !== "offline") out.push(presenceJson(session.userId, now, guildId))
          }
          return out
        },
        of: (userIds, guildId) => {
          const out: Array<string> = []
          for (const userId of userIds) {
            const now = shown(userId)
            if (now.status !== "offline") out.push(presenceJson(userId, now, guildId))
          }
          return out
        }
      })
    })
  )
}
