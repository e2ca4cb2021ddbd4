import { Effect, Schema } from "effect"
import { missingAccess } from "../../../src/model/Errors.ts"
import { read } from "../Definitions.ts"
import { renderGuildCreate } from "../Views.ts"

/** The gateway's GUILD_CREATE of the guild for a member, as JSON (Views.ts, `renderGuildCreate`), large from `largeThreshold` members. */
export const gatewayGuildCreate = read(
  "GatewayGuildCreate",
  { largeThreshold: Schema.Int },
  Schema.String,
  (state, { largeThreshold }, viewerId) => {
    const member = state.members.get(viewerId)
    return member === undefined
      ? Effect.fail(missingAccess())
      : Effect.succeed(renderGuildCreate(state, viewerId, member, largeThreshold))
  }
)

export const gatewayGuildReads = [gatewayGuildCreate] as const
