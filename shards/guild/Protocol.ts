import { Schema } from "effect"
import { ClusterSchema, Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { GuildResponse } from "../../src/model/Guilds.ts"
import { UserPartialResponse } from "../../src/model/Users.ts"
import { ActorErrors } from "../actors/Protocol.ts"
import { ReadQuery, WriteCommand } from "./operations/index.ts"

/**
 * The guild actor's messages. Writes carry an operation id: it is the
 * persisted message's primary key (the cluster answers a redelivery from
 * storage) and the key of `actor_operations` (a write that committed before
 * its runner died is not applied twice).
 */
export const GuildErrors = ActorErrors

export const Create = Rpc.make("Create", {
  payload: {
    operationId: Schema.String,
    channelId: Schema.String,
    owner: UserPartialResponse,
    name: Schema.String,
    icon: Schema.NullOr(Schema.String)
  },
  primaryKey: (p) => p.operationId,
  success: GuildResponse,
  error: GuildErrors
}).annotate(ClusterSchema.Persisted, true)

/**
 * Any write of operations/: decided from the state, committed, then answered
 * with the reply's JSON. `now` is fixed by the caller so a redelivery decides
 * the same; `operationId` is a snowflake (audit entries take their ids from it).
 * Not stored before delivery, unlike Create: the write is durable once
 * answered, and its caller hears 503 if the runner dies first (README,
 * Delivery guarantees).
 */
export const Write = Rpc.make("Write", {
  payload: {
    operationId: Schema.String,
    actorId: Schema.String,
    reason: Schema.NullOr(Schema.String),
    now: Schema.Number,
    command: WriteCommand
  },
  primaryKey: (p) => p.operationId,
  success: Schema.String,
  error: GuildErrors
})

/** Any read of operations/, for `viewerId`, answered with the reply's JSON. */
export const Read = Rpc.make("Read", {
  payload: { viewerId: Schema.String, query: ReadQuery },
  success: Schema.String,
  error: GuildErrors
})

/** The guild as the member `userId` sees it: GuildResponse, already rendered as JSON (see Reads.ts). */
export const View = Rpc.make("View", {
  payload: { userId: Schema.String },
  success: Schema.String,
  error: GuildErrors
})

/** Re-read the guild from Postgres; `found` is false when it does not exist. */
export const Reload = Rpc.make("Reload", { success: Schema.Struct({ found: Schema.Boolean }) })

/** Drop the guild's memory; the next message loads it again. */
export const Shutdown = Rpc.make("Shutdown", { success: Schema.Struct({ found: Schema.Boolean }) })

export const Guild = Entity.make("Guild", [Create, Write, View, Read, Reload, Shutdown])
