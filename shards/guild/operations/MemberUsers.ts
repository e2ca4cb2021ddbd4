import { Effect, Schema } from "effect"
import { UserPartialResponse } from "../../../src/model/Users.ts"
import { memberView } from "../members/GuildMember.ts"
import { unchanged, write } from "../Definitions.ts"
import type { GuildState } from "../State.ts"

const sameUser = (a: UserPartialResponse, b: UserPartialResponse) => JSON.stringify(a) === JSON.stringify(b)

/**
 * A member's user changed (their name, avatar, badges... by themselves or an
 * operator): the guild shows the new one from now on and tells its members
 * (GUILD_MEMBER_UPDATE). `guild_members` holds nothing of the user, so there
 * is nothing to write; a reload reads the user anew. Answers whether the guild
 * held a member that changed: a guild the user left meanwhile, or a second
 * delivery, changes nothing.
 */
export const replaceMemberUser = write(
  "ReplaceMemberUser",
  { user: UserPartialResponse },
  Schema.Boolean,
  (state, { user }, context) => {
    const member = state.members.get(user.id)
    if (member === undefined || sameUser(member.user, user)) return Effect.succeed(unchanged(state, false))
    const updated = { ...member, user }
    const next: GuildState = { ...state, members: state.members.with(user.id, updated) }
    return Effect.succeed({
      next,
      reply: true,
      audit: [],
      events: [{ type: "GUILD_MEMBER_UPDATE", data: { guild_id: context.guildId, ...memberView(updated) } }]
    })
  }
)

export const memberUsersWrites = [replaceMemberUser] as const
