import { Effect, Schema } from "effect"
import { UserPartialResponse } from "../../../src/model/Users.ts"
import { admit, checkAdmission } from "../members/Admission.ts"
import { JOIN_SOURCE_DISCOVERY } from "../members/JoinSources.ts"
import { unchanged, write } from "../Definitions.ts"

/**
 * POST /discovery/guilds/{id}/join: `user` joins a listed guild (the caller
 * checked the listing), unless banned or the guild is full. Joining again as
 * a member changes nothing.
 */
export const joinFromDiscovery = write("JoinFromDiscovery", { user: UserPartialResponse }, Schema.Null, (state, { user }, context) =>
  Effect.gen(function*() {
    yield* checkAdmission(state, user.id, context.now)
    if (state.members.has(user.id)) return unchanged(state, null)
    const joined = admit(state, context.guildId, user, {
      joinSourceType: JOIN_SOURCE_DISCOVERY,
      sourceInviteCode: null,
      inviterId: null
    }, context.now)
    return { ...joined, reply: null, audit: [] }
  }))

export const discoveryWrites = [joinFromDiscovery] as const
