import { Schema, SchemaTransformation } from "effect"
import { ClusterSchema, Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { GuildResponse } from "../../src/model/Guilds.ts"
import { BadRequest, Forbidden, NotFound } from "../../src/model/Errors.ts"
import { UserPartialResponse } from "../../src/model/Users.ts"
import { ReadQuery, WriteCommand } from "./operations/index.ts"

/**
 * An error as it crosses between processes: `{ _tag, error }`. The HTTP error
 * classes omit `_tag` when encoded (the wire body of the public API), so
 * BadRequest, Forbidden and NotFound all encode to the same `{code, message}`.
 * In a union that is ambiguous: the runners' binary transport cannot build a
 * codec for it at all (the runner throws while sending the reply, which is
 * already stored, and the caller waits until its timeout), and JSON (stored
 * replies) decodes every one of them as the first member, BadRequest. The
 * literal `_tag` here tells them apart.
 */
const onWire = <const Tag extends string, S extends Schema.Top>(tag: Tag, error: S) =>
  Schema.Struct({ _tag: Schema.Literal(tag), error }).pipe(
    Schema.decodeTo(
      Schema.toType(error),
      SchemaTransformation.transform({
        // `S` is generic, so the struct's Type cannot be narrowed to `{ error }` here.
        decode: (wire) => (wire as { readonly error: S["Type"] }).error,
        encode: (value) => ({ _tag: tag, error: value })
      })
    )
  )

/**
 * The guild actor's messages. Writes carry an operation id: it is the
 * persisted message's primary key (the cluster answers a redelivery from
 * storage) and the key of `actor_operations` (a write that committed before
 * its runner died is not applied twice).
 */
export const GuildErrors = Schema.Union([
  onWire("BadRequest", BadRequest),
  onWire("Forbidden", Forbidden),
  onWire("NotFound", NotFound)
])

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
