import { Schema } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { CarriedId } from "../../src/model/Ids.ts"

/**
 * The user actor: which guilds a user is in, kept in memory. Guild actors tell
 * it when the user joins or leaves; it loads the truth from Postgres when it starts.
 */
export const Joined = Rpc.make("Joined", { payload: { guildId: CarriedId.GuildId } })

/** The user left the guild or was removed from it. */
export const Left = Rpc.make("Left", { payload: { guildId: CarriedId.GuildId } })

export const ListGuilds = Rpc.make("ListGuilds", {
  payload: {
    before: Schema.optional(Schema.String),
    after: Schema.optional(Schema.String),
    limit: Schema.Int
  },
  success: Schema.Array(CarriedId.GuildId)
})

export const User = Entity.make("User", [Joined, Left, ListGuilds])
