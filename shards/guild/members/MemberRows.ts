import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { MemberProfile } from "./MemberProfile.ts"
import type { GuildMember } from "./GuildMember.ts"
import type { RowSink, RowWrite } from "../Definitions.ts"
import { rowsTable } from "../../actors/RowColumns.ts"
import { oneCopyEach, partialUserColumns, readPartialUser } from "../../actors/PartialUsers.ts"
import { bool, intOrNull, type Row, RowShapeError, texts, textOrNull, timestamp, timestampOrNull } from "../../actors/RowFields.ts"
import { SharedMap } from "../SharedMap.ts"

export interface LoadedMembers {
  readonly members: SharedMap<string, GuildMember>
  readonly memberProfiles: SharedMap<string, MemberProfile>
}

/**
 * A guild's members with their user, and the profiles of those who have one
 * (schema 0014). Rows are read with RowFields' checks, not a schema: a guild
 * may have a hundred thousand members.
 */
export const loadMembers = (
  guildId: string
): Effect.Effect<LoadedMembers, SqlError.SqlError | RowShapeError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`
      SELECT ${sql.literal(partialUserColumns("u"))}, m.nick AS member_nick, m.roles::text[] AS member_roles, m.joined_at,
             m.mute, m.deaf, m.communication_disabled_until AS member_timeout, m.avatar AS member_avatar,
             m.banner AS member_banner, m.bio AS member_bio, m.pronouns AS member_pronouns,
             m.accent_color AS member_accent_color, m.profile_flags AS member_profile_flags, m.join_source_type,
             m.source_invite_code, m.inviter_id::text AS inviter_id, m.temporary
      FROM guild_members m JOIN users u ON u.id = m.user_id WHERE m.guild_id = ${guildId}`
    return yield* Effect.try({
      try: () => membersOf(rows),
      catch: (error) => error instanceof RowShapeError ? error : new RowShapeError({ message: String(error) })
    })
  })

const membersOf = (rows: ReadonlyArray<Row>): LoadedMembers => {
  const same = oneCopyEach()
  const members = new Map<string, GuildMember>()
  const memberProfiles = new Map<string, MemberProfile>()
  for (const row of rows) {
    const user = readPartialUser(row, same)
    members.set(user.id, {
      user,
      nick: textOrNull(row, "member_nick"),
      avatar: textOrNull(row, "member_avatar"),
      banner: textOrNull(row, "member_banner"),
      accent_color: intOrNull(row, "member_accent_color"),
      roles: texts(row, "member_roles"),
      joined_at: timestamp(row, "joined_at"),
      mute: bool(row, "mute"),
      deaf: bool(row, "deaf"),
      communication_disabled_until: timestampOrNull(row, "member_timeout"),
      profile_flags: intOrNull(row, "member_profile_flags")
    })
    const profile: MemberProfile = {
      bio: textOrNull(row, "member_bio"),
      pronouns: textOrNull(row, "member_pronouns"),
      joinSourceType: intOrNull(row, "join_source_type"),
      sourceInviteCode: textOrNull(row, "source_invite_code"),
      inviterId: textOrNull(row, "inviter_id"),
      temporary: bool(row, "temporary")
    }
    // Most members never set a profile: only those who did take an entry.
    if (
      profile.bio !== null || profile.pronouns !== null || profile.joinSourceType !== null ||
      profile.sourceInviteCode !== null || profile.inviterId !== null || profile.temporary
    ) memberProfiles.set(user.id, profile)
  }
  return { members: SharedMap.from(members), memberProfiles: SharedMap.from(memberProfiles) }
}

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
