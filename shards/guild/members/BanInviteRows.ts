import { Effect, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { IsoTimestamp } from "../../../src/platform/Timestamps.ts"
import { toUserPartial, UserPartialColumns } from "../../../src/model/Users.ts"
import { loadPartialUsers, partialUserColumns } from "../../actors/PartialUsers.ts"
import type { GuildBan } from "./BanRules.ts"
import type { GuildInvite } from "./InviteRules.ts"

/** A ban's row as `loadBans` selects it: the banned user's partial columns and the ban's, each with its schema. */
const BanRow = Schema.Struct({
  ...UserPartialColumns.fields,
  ban_reason: Schema.NullOr(Schema.String),
  moderator_id: Schema.String,
  banned_at: IsoTimestamp,
  expires_at: Schema.NullOr(IsoTimestamp)
})

const decodeBans = Schema.decodeUnknownEffect(Schema.Array(BanRow))

/** An invite's columns as `loadInvites` selects them, each with the schema that decodes it. */
const InviteRow = Schema.Struct({
  code: Schema.String,
  channel_id: Schema.String,
  created_at: IsoTimestamp,
  max_age: Schema.Int,
  max_uses: Schema.Int,
  uses: Schema.Int,
  temporary: Schema.Boolean,
  inviter_id: Schema.NullOr(Schema.String)
})

const decodeInvites = Schema.decodeUnknownEffect(Schema.Array(InviteRow))

/** A guild's bans still in effect (schema 0015); expired rows stay out and are deleted by the next ban write. */
export const loadBans = (
  guildId: string
): Effect.Effect<ReadonlyMap<string, GuildBan>, SqlError.SqlError | Schema.SchemaError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`
      SELECT ${sql.literal(partialUserColumns("u"))}, b.reason AS ban_reason, b.moderator_id::text AS moderator_id,
             b.banned_at, b.expires_at
      FROM guild_bans b JOIN users u ON u.id = b.user_id
      WHERE b.guild_id = ${guildId} AND (b.expires_at IS NULL OR b.expires_at > now())`
    const bans = yield* decodeBans(rows)
    return new Map(bans.map((r): [string, GuildBan] => [r.id, {
      user: toUserPartial(r),
      reason: r.ban_reason,
      moderator_id: r.moderator_id,
      banned_at: r.banned_at,
      expires_at: r.expires_at
    }]))
  })

/** A guild's invites with their inviter (schema 0015). */
export const loadInvites = (
  guildId: string
): Effect.Effect<ReadonlyMap<string, GuildInvite>, SqlError.SqlError | Schema.SchemaError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const invites = yield* decodeInvites(yield* sql`
      SELECT code, channel_id::text AS channel_id, created_at, max_age, max_uses, uses, temporary,
             inviter_id::text AS inviter_id
      FROM guild_invites WHERE guild_id = ${guildId}`)
    const inviterIds = [...new Set(invites.flatMap((i) => (i.inviter_id === null ? [] : [i.inviter_id])))]
    const byId = yield* loadPartialUsers(inviterIds)
    return new Map(invites.map((i): [string, GuildInvite] => [i.code, {
      code: i.code,
      channelId: i.channel_id,
      inviter: i.inviter_id === null ? null : byId.get(i.inviter_id) ?? null,
      createdAt: i.created_at,
      maxAge: i.max_age,
      maxUses: i.max_uses,
      uses: i.uses,
      temporary: i.temporary
    }]))
  })
