import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { BadRequest, Forbidden } from "../../../src/model/Errors.ts"
import type { UserPartialResponse } from "../../../src/model/Users.ts"
import { isBanned, pruneExpiredBans } from "./BanRules.ts"
import { EMPTY_PROFILE } from "./MemberProfile.ts"
import { type GuildMember, memberView } from "./GuildMember.ts"
import type { GuildEvent } from "../Definitions.ts"
import type { GuildState } from "../State.ts"

/** Conventions, Limits: members per guild unless LARGE_GUILD_OVERRIDE. */
export const MAX_MEMBERS = 1000

/** How someone came in (GuildMemberSearchResult.supplemental). */
export interface JoinSource {
  readonly joinSourceType: number
  readonly sourceInviteCode: string | null
  readonly inviterId: string | null
  /** Through a temporary invite: membership ends when the user goes offline. */
  readonly temporary?: boolean
}

/** Refuses a banned user and a full guild. */
export const checkAdmission = (state: GuildState, userId: string, now: number): Effect.Effect<void, BadRequest | Forbidden> => {
  if (isBanned(state, userId, now)) {
    return Effect.fail(new Forbidden({ code: "USER_BANNED_FROM_GUILD", message: "You are banned from this guild" }))
  }
  if (state.members.size >= MAX_MEMBERS && !state.guild.features.includes("LARGE_GUILD_OVERRIDE")) {
    return Effect.fail(new BadRequest({ code: "MAX_GUILD_MEMBERS", message: `Maximum number of members reached (${MAX_MEMBERS})` }))
  }
  return Effect.void
}

/**
 * `user` becomes a member at `now` (by invite, vanity URL or discovery): the
 * next state, the rows (expired bans go on the way), and the events.
 */
export const admit = (state: GuildState, guildId: string, user: UserPartialResponse, source: JoinSource, now: number) => {
  const pruned = pruneExpiredBans(state, now)
  const member: GuildMember = {
    user,
    nick: null,
    avatar: null,
    banner: null,
    accent_color: null,
    roles: [],
    joined_at: new Date(now).toISOString(),
    mute: false,
    deaf: false,
    communication_disabled_until: null,
    profile_flags: null
  }
  const next: GuildState = {
    ...pruned.state,
    members: pruned.state.members.with(user.id, member),
    memberProfiles: pruned.state.memberProfiles.with(user.id, { ...EMPTY_PROFILE, ...source, temporary: source.temporary ?? false })
  }
  const persist = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (pruned.expired.length > 0) {
      yield* sql`DELETE FROM guild_bans WHERE guild_id = ${guildId} AND expires_at IS NOT NULL AND expires_at <= ${member.joined_at}`
    }
    yield* sql`INSERT INTO guild_members (guild_id, user_id, joined_at, join_source_type, source_invite_code, inviter_id, temporary)
               VALUES (${guildId}, ${user.id}, ${member.joined_at}, ${source.joinSourceType}, ${source.sourceInviteCode},
                       ${source.inviterId}, ${source.temporary ?? false})`
  })
  const events: ReadonlyArray<GuildEvent> = [
    ...pruned.expired.map((ban) => ({ type: "GUILD_BAN_REMOVE", data: { guild_id: guildId, user: ban.user } })),
    { type: "GUILD_MEMBER_ADD", data: { ...memberView(member), guild_id: guildId } }
  ]
  return { next, persist, events }
}
