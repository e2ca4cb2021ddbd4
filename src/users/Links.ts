import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { UserRow } from "../model/Users.ts"

/** A guild two users are both members of, as the other user is known there. */
export interface SharedGuild {
  readonly id: string
  /** The target's nickname in it. */
  readonly nick: string | null
  readonly memberCount: number
}

/**
 * What ties one user to another, for profiles: guilds they share (the
 * `guild_members` table) and the viewer's relationship to the target
 * (`relationships`: 1 friend, 2 blocked, 3 incoming, 4 outgoing request).
 */
export class UserLinks extends Context.Service<UserLinks, {
  readonly relationship: (viewerId: string, targetId: string) => Effect.Effect<number | undefined>
  readonly sharedGuilds: (viewerId: string, targetId: string) => Effect.Effect<ReadonlyArray<SharedGuild>>
  /** Friends of both, newest account first. */
  readonly mutualFriends: (viewerId: string, targetId: string) => Effect.Effect<ReadonlyArray<UserRow>>
  /** The target's ProfilePrivacyLevel setting (0 all guilds, 1 small guilds only, 2 friends only). */
  readonly profilePrivacy: (targetId: string) => Effect.Effect<number>
}>()("guildhall/UserLinks") {
  static readonly layer = Layer.effect(
    UserLinks,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return UserLinks.of({
        relationship: Effect.fn("UserLinks.relationship")((viewerId, targetId) =>
          sql<{ type: number }>`SELECT type FROM relationships WHERE user_id = ${viewerId} AND target_id = ${targetId}`.pipe(
            Effect.map((rows) => rows[0]?.type),
            Effect.orDie
          )),
        sharedGuilds: Effect.fn("UserLinks.sharedGuilds")((viewerId, targetId) =>
          sql<{ id: string; nick: string | null; member_count: number }>`
            SELECT t.guild_id AS id, t.nick,
                   (SELECT count(*)::int FROM guild_members c WHERE c.guild_id = t.guild_id) AS member_count
            FROM guild_members t JOIN guild_members v ON v.guild_id = t.guild_id AND v.user_id = ${viewerId}
            WHERE t.user_id = ${targetId}
            ORDER BY t.guild_id`.pipe(
            Effect.map((rows) => rows.map((r) => ({ id: String(r.id), nick: r.nick, memberCount: r.member_count }))),
            Effect.orDie
          )),
        mutualFriends: Effect.fn("UserLinks.mutualFriends")((viewerId, targetId) =>
          sql<UserRow>`
            SELECT u.* FROM relationships a
            JOIN relationships b ON b.target_id = a.target_id AND b.user_id = ${targetId} AND b.type = 1
            JOIN users u ON u.id = a.target_id
            WHERE a.user_id = ${viewerId} AND a.type = 1
            ORDER BY u.id DESC`.pipe(Effect.orDie)),
        profilePrivacy: Effect.fn("UserLinks.profilePrivacy")((targetId) =>
          sql<{ level: number | null }>`
            SELECT (data->>'profile_privacy')::int AS level FROM user_settings WHERE user_id = ${targetId}`.pipe(
            Effect.map((rows) => rows[0]?.level ?? 0),
            Effect.orDie
          ))
      })
    })
  )
}
