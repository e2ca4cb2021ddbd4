import { Effect } from "effect"
import { listGuilds } from "../../shards/user/operations/Guilds.ts"
import { BadRequest } from "../model/Errors.ts"
import { Limits } from "../platform/Limits.ts"
import { UserActors } from "./UserActors.ts"

/**
 * Whether a user may be in one more guild (`max_guilds`, src/platform/Limits.ts):
 * asked before creating or joining one. The guild being joined does not count,
 * so joining a guild one is already in is never refused for it.
 */
export const guildRoom = Effect.gen(function*() {
  const userActors = yield* UserActors
  const limits = yield* Limits
  return (userId: string, joining?: string) =>
    Effect.gen(function*() {
      const max = limits.get("max_guilds")
      const guildIds = yield* userActors.read(userId, listGuilds, { limit: max + 1 })
      if (guildIds.filter((id) => id !== joining).length >= max) {
        return yield* new BadRequest({ code: "MAX_GUILDS", message: `Maximum number of guilds reached (${max})` })
      }
    })
})
