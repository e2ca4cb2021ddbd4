import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { GuildBanResponse } from "../../../src/model/Bans.ts"
import { missingPermissions } from "../../../src/model/Errors.ts"
import { UserPartialResponse } from "../../../src/model/Users.ts"
import { requirePermission } from "../Access.ts"
import { authorMessagesSince, bulkDeleteEvents, deleteAuthorMessagesSince, firstIdAt, StoredMessageRef, withoutHeld, withoutMessages } from "../messages/AuthorMessages.ts"
import { activeBans, banExpiry, type GuildBan, pruneExpiredBans, withBan, withoutBan, withoutMember } from "../members/BanRules.ts"
import { outranks } from "../members/Hierarchy.ts"
import type { GuildEvent } from "../Definitions.ts"
import { read, unchanged, write } from "../Definitions.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import { botRoleRemoval } from "./BotRoles.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

/** Audit log action types (part C, AuditLogActionType). */
const MEMBER_BAN_ADD = 22
const MEMBER_BAN_REMOVE = 23

/** Deletes the rows of bans that ran out: every ban write sweeps its guild. */
const sweepExpired = (guildId: string, now: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`DELETE FROM guild_bans WHERE guild_id = ${guildId} AND expires_at IS NOT NULL
        AND expires_at <= ${new Date(now).toISOString()}`))

const banRemoved = (guildId: string, ban: GuildBan): GuildEvent => ({
  type: "GUILD_BAN_REMOVE",
  data: { guild_id: guildId, user: ban.user }
})

/** GET /guilds/{id}/bans: BAN_MEMBERS; bans in effect at `now`. */
export const listBans = read("ListBans", { now: Schema.Number }, Schema.Array(GuildBanResponse), (state, { now }, viewerId) =>
  Effect.as(requirePermission(state, viewerId, Permission.BAN_MEMBERS, now), activeBans(state, now)))

/**
 * PUT /guilds/{id}/bans/{user_id}: BAN_MEMBERS and a rank above the target
 * (who may not be a member at all); never the owner. A member banned leaves.
 */
export const banMember = write(
  "BanMember",
  {
    target: UserPartialResponse,
    reason: Schema.NullOr(Schema.String),
    deleteMessageDays: Schema.Int,
    durationSeconds: Schema.Int,
    /** The target's messages of those days as Postgres had them, for the ones older than the windows. */
    storedMessages: Schema.optional(Schema.Array(StoredMessageRef)),
    /** Those of the target's messages under a legal hold: kept, in the windows and in Postgres. */
    heldMessageIds: Schema.optional(Schema.Array(Schema.String))
  },
  Schema.Null,
  (state, { target, reason, deleteMessageDays, durationSeconds, storedMessages, heldMessageIds }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.BAN_MEMBERS, context.now)
      const isMember = state.members.has(target.id)
      if (target.id === state.guild.owner_id || target.id === context.actorId) return yield* missingPermissions()
      if (isMember && !outranks(state, context.actorId, target.id)) return yield* missingPermissions()
      const pruned = pruneExpiredBans(state, context.now)
      const ban: GuildBan = {
        user: target,
        reason,
        moderator_id: context.actorId,
        banned_at: new Date(context.now).toISOString(),
        expires_at: banExpiry(context.now, durationSeconds)
      }
      const fromId = firstIdAt(context.now - deleteMessageDays * 24 * 3600_000)
      const purged = deleteMessageDays > 0
        ? withoutHeld(authorMessagesSince(state, target.id, fromId, storedMessages ?? []), heldMessageIds)
        : new Map<string, ReadonlySet<string>>()
      const botRole = botRoleRemoval(withoutMember(withBan(pruned.state, ban), target.id), context.guildId, target.id)
      const next = withoutMessages(botRole.next, purged)
      const persist = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sweepExpired(context.guildId, context.now)
        yield* sql`INSERT INTO guild_bans (guild_id, user_id, moderator_id, reason, banned_at, expires_at)
                   VALUES (${context.guildId}, ${target.id}, ${context.actorId}, ${reason}, ${ban.banned_at}, ${ban.expires_at})
                   ON CONFLICT (guild_id, user_id) DO UPDATE SET moderator_id = EXCLUDED.moderator_id,
                     reason = EXCLUDED.reason, banned_at = EXCLUDED.banned_at, expires_at = EXCLUDED.expires_at`
        if (isMember) yield* sql`DELETE FROM guild_members WHERE guild_id = ${context.guildId} AND user_id = ${target.id}`
        if (deleteMessageDays > 0) yield* deleteAuthorMessagesSince(context.guildId, target.id, fromId)
        yield* botRole.persist
      })
      const events: Array<GuildEvent> = pruned.expired.map((b) => banRemoved(context.guildId, b))
      events.push({ type: "GUILD_BAN_ADD", data: { guild_id: context.guildId, user: target } })
      if (isMember) events.push({ type: "GUILD_MEMBER_REMOVE", data: { guild_id: context.guildId, user: target } }, ...botRole.events)
      events.push(...bulkDeleteEvents(context.guildId, purged))
      return {
        next,
        reply: null,
        persist,
        audit: [{
          actionType: MEMBER_BAN_ADD,
          targetId: target.id,
          changes: [],
          options: {
            delete_member_days: String(deleteMessageDays),
            ...(ban.expires_at === null ? {} : { expires_at: ban.expires_at })
          }
        }],
        events
      }
    })
)

/** DELETE /guilds/{id}/bans/{user_id}: BAN_MEMBERS; lifting a ban that is not there changes nothing. */
export const unbanMember = write("UnbanMember", { targetId: CarriedId.UserId }, Schema.Null, (state, { targetId }, context) =>
  Effect.gen(function*() {
    yield* requirePermission(state, context.actorId, Permission.BAN_MEMBERS, context.now)
    const pruned = pruneExpiredBans(state, context.now)
    const ban = pruned.state.bans.get(targetId)
    const expiredEvents = pruned.expired.map((b) => banRemoved(context.guildId, b))
    if (ban === undefined) {
      return pruned.expired.length === 0 ? unchanged(state, null) : {
        ...unchanged(pruned.state, null),
        persist: sweepExpired(context.guildId, context.now),
        events: expiredEvents
      }
    }
    return {
      next: withoutBan(pruned.state, targetId),
      reply: null,
      persist: Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sweepExpired(context.guildId, context.now)
        yield* sql`DELETE FROM guild_bans WHERE guild_id = ${context.guildId} AND user_id = ${targetId}`
      }),
      audit: [{ actionType: MEMBER_BAN_REMOVE, targetId, changes: [] }],
      events: [...expiredEvents, banRemoved(context.guildId, ban)]
    }
  }))

export const bansWrites = [banMember, unbanMember] as const
export const bansReads = [listBans] as const
