import { Effect, Schema } from "effect"
import { CarriedId } from "../../../src/model/Ids.ts"
import { read } from "../Definitions.ts"

const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)

/** The ids of the user's guilds in id order, a page of them (GET /users/@me/guilds, READY). */
export const listGuilds = read(
  "ListGuilds",
  { before: Schema.optional(Schema.String), after: Schema.optional(Schema.String), limit: Schema.Int },
  Schema.Array(CarriedId.GuildId),
  (state, { before, after, limit }) =>
    Effect.sync(() => {
      const inRange = [...state.guilds].sort(byId).filter((id) =>
        (after === undefined || byId(id, after) > 0) && (before === undefined || byId(id, before) < 0)
      )
      // With only `before`, the page is the newest ids before it.
      return before !== undefined && after === undefined ? inRange.slice(-limit) : inRange.slice(0, limit)
    })
)

export const guildReads = [listGuilds] as const
