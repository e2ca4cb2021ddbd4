import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { isoTimestamp, isoTimestampOrNull } from "../../../src/platform/Timestamps.ts"
import { toUserPartial, type UserRow } from "../../../src/model/Users.ts"
import type { GuildBan } from "./BanRules.ts"
import type { GuildInvite } from "./InviteRules.ts"

interface BanRow extends UserRow {
  readonly ban_reason: string | null
  readonly moderator_id: string
  readonly banned_at: Date | string
  readonly expires_at: Date | string | null
}

interface InviteRow {
  readonly code: string
  readonly channel_id: string
  readonly created_at: Date | string
  readonly max_age: number
  readonly max_uses: number
  readonly uses: number
  readonly temporary: boolean
}

/** A guild's bans still in effect (schema 0015); expired rows stay out and are deleted by the next ban write. */
export const loadBans = (guildId: string): Effect.Effect<ReadonlyMap<string, GuildBan>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<BanRow>`
      SELECT u.*, b.reason AS ban_reason, b.moderator_id::text AS moderator_id, b.banned_at, b.expires_at
      FROM guild_bans b JOIN users u ON u.id = b.user_id
      WHERE b.guild_id = ${guildId} AND (b.expires_at IS NULL OR b.expires_at > now())`
    return new Map(rows.map((r): [string, GuildBan] => [r.id, {
      user: toUserPartial(r),
      reason: r.ban_reason,
      moderator_id: r.moderator_id,
      banned_at: isoTimestamp(r.banned_at),
      expires_at: isoTimestampOrNull(r.expires_at)
    }]))
  })

/** A guild's invites with their inviter (schema 0015). */
export const loadInvites = (guildId: string): Effect.Effect<ReadonlyMap<string, GuildInvite>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const invites = yield* sql<InviteRow & { readonly inviter_id: string | null }>`
      SELECT code, channel_id::text AS channel_id, created_at, max_age, max_uses, uses, temporary,
             inviter_id::text AS inviter_id
      FROM guild_invites WHERE guild_id = ${guildId}`
    const inviterIds = [...new Set(invites.flatMap((i) => (i.inviter_id === null ? [] : [i.inviter_id])))]
    const inviters = inviterIds.length === 0
      ? []
      : yield* sql<UserRow>`SELECT * FROM users WHERE id IN ${sql.in(inviterIds)}`
    const byId = new Map(inviters.map((u) => [u.id, toUserPartial(u)]))
    return new Map(invites.map((i): [string, GuildInvite] => [i.code, {
      code: i.code,
      channelId: i.channel_id,
      inviter: i.inviter_id === null ? null : byId.get(i.inviter_id) ?? null,
      createdAt: isoTimestamp(i.created_at),
      maxAge: i.max_age,
      maxUses: i.max_uses,
      uses: i.uses,
      temporary: i.temporary
    }]))
  })
