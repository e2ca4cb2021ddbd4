import { Schema } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"

/**
 * The user actor: which guilds a user is in, kept in memory. Guild actors tell
 * it when the user joins or leaves; it loads the truth from Postgres when it starts.
 */
export const Joined = Rpc.make("Joined", { payload: { guildId: Schema.String } })

/** The user left the guild or was removed from it. */
export const Left = Rpc.make("Left", { payload: { guildId: Schema.String } })

export const ListGuilds = Rpc.make("ListGuilds", {
  payload: {
    before: Schema.optional(Schema.String),
    after: Schema.optional(Schema.String),
    limit: Schema.Int
  },
  success: Schema.Array(Schema.String)
})

export const User = Entity.make("User", [Joined, Left, ListGuilds])
