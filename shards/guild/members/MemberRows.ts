import { Effect, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { IsoTimestamp } from "../../../src/platform/Timestamps.ts"
import { toUserPartial, UserPartialColumns } from "../../../src/model/Users.ts"
import type { MemberProfile } from "./MemberProfile.ts"
import type { GuildMember } from "./GuildMember.ts"
import type { RowSink, RowWrite } from "../Definitions.ts"
import { rowsTable } from "../../actors/RowColumns.ts"
import { partialUserColumns } from "../../actors/PartialUsers.ts"
import { SharedMap } from "../SharedMap.ts"

const TextOrNull = Schema.NullOr(Schema.String)
const IntOrNull = Schema.NullOr(Schema.Int)

/**
 * A member's row as `loadMembers` selects it: the partial user's columns and
 * the member's, each with the schema that decodes it. Member columns are
 * aliased where `users` has a column of the same name (avatar, banner, bio...).
 */
const MemberRow = Schema.Struct({
  ...UserPartialColumns.fields,
  member_nick: TextOrNull,
  /** Role ids: a bigint[] column, so decimal text. */
  member_roles: Schema.Array(Schema.String),
  joined_at: IsoTimestamp,
  mute: Schema.Boolean,
  deaf: Schema.Boolean,
  member_timeout: Schema.NullOr(IsoTimestamp),
  member_avatar: TextOrNull,
  member_banner: TextOrNull,
  member_bio: TextOrNull,
  member_pronouns: TextOrNull,
  member_accent_color: IntOrNull,
  member_profile_flags: IntOrNull,
  join_source_type: IntOrNull,
  source_invite_code: TextOrNull,
  inviter_id: TextOrNull,
  temporary: Schema.Boolean
})

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(MemberRow))

export interface LoadedMembers {
  readonly members: SharedMap<string, GuildMember>
  readonly memberProfiles: SharedMap<string, MemberProfile>
}

/** A guild's members with their user, and the profiles of those who have one (schema 0014). */
export const loadMembers = (
  guildId: string
): Effect.Effect<LoadedMembers, SqlError.SqlError | Schema.SchemaError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`
      SELECT ${sql.literal(partialUserColumns("u"))}, m.nick AS member_nick, m.roles::text[] AS member_roles, m.joined_at,
             m.mute, m.deaf, m.communication_disabled_until AS member_timeout, m.avatar AS member_avatar,
             m.banner AS member_banner, m.bio AS member_bio, m.pronouns AS member_pronouns,
             m.accent_color AS member_accent_color, m.profile_flags AS member_profile_flags, m.join_source_type,
             m.source_invite_code, m.inviter_id::text AS inviter_id, m.temporary
      FROM guild_members m JOIN users u ON u.id = m.user_id WHERE m.guild_id = ${guildId}`
    const members = new Map<string, GuildMember>()
    const memberProfiles = new Map<string, MemberProfile>()
    for (const m of yield* decodeRows(rows)) {
      members.set(m.id, {
        user: toUserPartial(m),
        nick: m.member_nick,
        avatar: m.member_avatar,
        banner: m.member_banner,
        accent_color: m.member_accent_color,
        roles: m.member_roles,
        joined_at: m.joined_at,
        mute: m.mute,
        deaf: m.deaf,
        communication_disabled_until: m.member_timeout,
        profile_flags: m.member_profile_flags
      })
      // Most members never set a profile: only those who did take an entry.
      if (m.member_bio !== null || m.member_pronouns !== null || m.join_source_type !== null ||
        m.source_invite_code !== null || m.inviter_id !== null || m.temporary) {
        memberProfiles.set(m.id, {
          bio: m.member_bio,
          pronouns: m.member_pronouns,
          joinSourceType: m.join_source_type,
          sourceInviteCode: m.source_invite_code,
          inviterId: m.inviter_id,
          temporary: m.temporary
        })
      }
    }
    return { members: SharedMap.from(members), memberProfiles: SharedMap.from(memberProfiles) }
  })

/**
 * Member rows as a batch writes them: every member column of each member
 * updated in the batch, in one statement (the values arrive as text or
 * numbers; the casts give them their columns' types). A member holding a
 * role is no longer temporary, for good (schema 0025).
 */
const MEMBER_COLUMNS = [
  "user_id", "nick", "roles", "mute", "deaf", "timeout", "avatar", "banner", "accent_color", "profile_flags", "bio", "pronouns"
]

export const memberRows: RowSink = {
  name: "guild_members",
  statements: (sql, guildId, rows) => [
    sql`UPDATE guild_members AS m SET
          nick = v.nick, roles = v.roles::bigint[], mute = v.mute::boolean, deaf = v.deaf::boolean,
          communication_disabled_until = v.timeout::timestamptz, avatar = v.avatar, banner = v.banner,
          accent_color = v.accent_color::integer, profile_flags = v.profile_flags::integer, bio = v.bio, pronouns = v.pronouns,
          temporary = m.temporary AND cardinality(v.roles::bigint[]) = 0
        FROM ${rowsTable(sql, rows, MEMBER_COLUMNS)}
        WHERE m.guild_id = ${guildId} AND m.user_id = v.user_id::bigint`
  ]
}

/** The member's row after an update, for `memberRows`. */
export const memberRow = (userId: string, member: GuildMember, profile: MemberProfile): RowWrite => ({
  sink: memberRows,
  key: userId,
  values: [
    userId,
    member.nick ?? null,
    // Role ids are snowflakes (digits only), so the array literal needs no escaping.
    `{${member.roles.join(",")}}`,
    String(member.mute),
    String(member.deaf),
    member.communication_disabled_until ?? null,
    member.avatar ?? null,
    member.banner ?? null,
    member.accent_color ?? null,
    member.profile_flags ?? null,
    profile.bio,
    profile.pronouns
  ]
})

export const deleteMemberRow = (guildId: string, userId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`DELETE FROM guild_members WHERE guild_id = ${guildId} AND user_id = ${userId}`))
