import { Effect, Schema } from "effect"
import { GuildMemberResponse } from "../../../src/model/Guilds.ts"
import { requireMember } from "../Access.ts"
import { searchIndex } from "../members/SearchIndex.ts"
import { memberView } from "../members/GuildMember.ts"
import { read } from "../Definitions.ts"
import type { GuildState } from "../State.ts"

/** The members whose username, global name or nickname starts with `query` (any case), oldest first; `limit` 0 is all. */
const byPrefix = (state: GuildState, query: string, limit: number): ReadonlyArray<GuildMemberResponse> => {
  const prefix = query.toLowerCase()
  const out: Array<GuildMemberResponse> = []
  for (const e of searchIndex(state).entries) {
    if (limit > 0 && out.length >= limit) break
    if (prefix === "" || e.username.startsWith(prefix) || e.globalName.startsWith(prefix) || e.nick.startsWith(prefix)) {
      out.push(memberView(e.member))
    }
  }
  return out
}

/**
 * The gateway's REQUEST_GUILD_MEMBERS (op 8), for a member: by name prefix,
 * or the listed users (those who are members), from the actor's memory.
 */
export const requestMembers = read(
  "RequestMembers",
  {
    query: Schema.optional(Schema.String),
    userIds: Schema.optional(Schema.Array(Schema.String)),
    limit: Schema.Int
  },
  Schema.Array(GuildMemberResponse),
  (state, { query, userIds, limit }, viewerId) =>
    Effect.as(
      requireMember(state, viewerId),
      userIds === undefined
        ? byPrefix(state, query ?? "", limit)
        : userIds.flatMap((id) => {
          const member = state.members.get(id)
          return member === undefined ? [] : [memberView(member)]
        })
    )
)

export const gatewayMemberReads = [requestMembers] as const
