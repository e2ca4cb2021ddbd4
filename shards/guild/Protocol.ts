import { Schema } from "effect"
import { ClusterSchema, Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { GuildMemberResponse, GuildResponse, GuildUpdateRequest } from "../../src/guilds/Schemas.ts"
import { BadRequest, Forbidden, NotFound } from "../../src/http/Errors.ts"
import { UserPartialResponse } from "../../src/users/Schemas.ts"

/**
 * The guild actor's messages. Writes carry an operation id: it is the
 * persisted message's primary key (the cluster answers a redelivery from
 * storage) and the key of `actor_operations` (a write that committed before
 * its runner died is not applied twice).
 */
const GuildErrors = Schema.Union([BadRequest, Forbidden, NotFound])

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

export const Update = Rpc.make("Update", {
  payload: { operationId: Schema.String, userId: Schema.String, patch: GuildUpdateRequest },
  primaryKey: (p) => p.operationId,
  success: GuildResponse,
  error: GuildErrors
}).annotate(ClusterSchema.Persisted, true)

export const Get = Rpc.make("Get", {
  payload: { userId: Schema.String },
  success: GuildResponse,
  error: GuildErrors
})

export const ListMembers = Rpc.make("ListMembers", {
  payload: { userId: Schema.String, limit: Schema.Int, after: Schema.optional(Schema.String) },
  success: Schema.Array(GuildMemberResponse),
  error: GuildErrors
})

export const GetMember = Rpc.make("GetMember", {
  payload: { userId: Schema.String, targetId: Schema.String },
  success: GuildMemberResponse,
  error: GuildErrors
})

/** Re-read the guild from Postgres; `found` is false when it does not exist. */
export const Reload = Rpc.make("Reload", { success: Schema.Struct({ found: Schema.Boolean }) })

/** Drop the guild's memory; the next message loads it again. */
export const Shutdown = Rpc.make("Shutdown", { success: Schema.Struct({ found: Schema.Boolean }) })

export const Guild = Entity.make("Guild", [Create, Update, Get, ListMembers, GetMember, Reload, Shutdown])
