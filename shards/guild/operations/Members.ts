import { Effect, Schema } from "effect"
import { GuildMemberResponse } from "../../../src/guilds/Schemas.ts"
import { unknown } from "../../../src/http/Errors.ts"
import { requireMember } from "../Access.ts"
import { read } from "../Operations.ts"
import { membersPage } from "../State.ts"

/** GET /guilds/{id}/members: a page in id order, for a member. */
export const listMembers = read(
  "ListMembers",
  { limit: Schema.Int, after: Schema.optional(Schema.String) },
  Schema.Array(GuildMemberResponse),
  (state, { limit, after }, viewerId) => Effect.as(requireMember(state, viewerId), membersPage(state, limit, after))
)

/** GET /guilds/{id}/members/{user_id} and @me, for a member. */
export const getMember = read("GetMember", { targetId: Schema.String }, GuildMemberResponse, (state, { targetId }, viewerId) =>
  Effect.flatMap(requireMember(state, viewerId), () => {
    const found = state.members.get(targetId)
    return found === undefined ? Effect.fail(unknown("MEMBER")) : Effect.succeed(found)
  }))

export const membersWrites = [] as const
export const membersReads = [listMembers, getMember] as const
