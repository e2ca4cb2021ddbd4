import { Context, Effect, FiberSet, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { endTemporaryMembership } from "../../shards/guild/operations/TemporaryMembers.ts"
import { GatewayRegistry } from "../gateway/Registry.ts"
import { Actors } from "../guilds/Actors.ts"
import type { GuildId, UserId } from "../model/Ids.ts"

/**
 * Ends temporary memberships (invites created with `temporary: true`) when
 * their user goes offline. The guilds holding the user temporarily come from
 * Postgres (a partial index, schema 0025) so that going offline costs nothing
 * for everyone else; each guild's actor then decides from its own state (a
 * role given meanwhile keeps the member), wherever it runs, through Actors.
 *
 * Only going offline ends it: a user who joins temporarily and never connects
 * to the gateway stays a member until they connect and disconnect. "Offline"
 * is seen per API process: in cluster mode, a user whose last session on one
 * process closes while another process still holds one of theirs is let go.
 */
export class TemporaryMembers extends Context.Service<TemporaryMembers, {
  /** `userId` went offline: every guild where they are a temporary member lets them go. */
  readonly wentOffline: (userId: UserId) => Effect.Effect<void>
}>()("guildhall/TemporaryMembers") {
  static readonly layer = Layer.effect(
    TemporaryMembers,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const actors = yield* Actors

      const endIn = (userId: UserId, guildId: GuildId) =>
        actors.write(guildId, endTemporaryMembership, {}, { actorId: userId }).pipe(
          // The user actor forgets the guild; Postgres already has no membership if this is lost.
          Effect.flatMap((removed) =>
            removed ? actors.user(userId).Left({ guildId }).pipe(Effect.timeout("2 seconds"), Effect.ignore) : Effect.void
          ),
          // Not removed this time: the next disconnect tries again.
          Effect.catch((e) => Effect.logWarning("temporary membership not ended", guildId, e))
        )

      const wentOffline = Effect.fn("TemporaryMembers.wentOffline")((userId: UserId) =>
        sql<{ readonly guild_id: GuildId }>`
          SELECT guild_id::text AS guild_id FROM guild_members WHERE user_id = ${userId} AND temporary`.pipe(
          Effect.flatMap((rows) => Effect.forEach(rows, (row) => endIn(userId, row.guild_id), { discard: true })),
          Effect.catch((e) => Effect.logWarning("temporary memberships not looked up", userId, e))
        ))

      return TemporaryMembers.of({ wentOffline })
    })
  )
}

/**
 * The gateway's hook: a user's last session here closed. The work runs beside
 * the closing connection, not in its way; by then the user may have come back
 * (a new session), and then they are not offline after all.
 */
export const TemporaryMembersOnDisconnect = Layer.effectDiscard(Effect.gen(function*() {
  const registry = yield* GatewayRegistry
  const temporary = yield* TemporaryMembers
  const running = yield* FiberSet.make()
  const offline = (userId: string) => registry.ofUser(userId).size === 0
  registry.onClose((session) =>
    offline(session.userId)
      ? FiberSet.run(running, Effect.suspend(() => offline(session.userId) ? temporary.wentOffline(session.userId) : Effect.void)).pipe(
        Effect.asVoid
      )
      : Effect.void
  )
})).pipe(Layer.provide(TemporaryMembers.layer))
