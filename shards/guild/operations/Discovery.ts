import { Effect, Schema } from "effect"
import { UserPartialResponse } from "../../../src/users/Schemas.ts"
import { admit, checkAdmission } from "../Admission.ts"
import { JOIN_SOURCE_DISCOVERY } from "../JoinSources.ts"
import { unchanged, write } from "../Operations.ts"

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
