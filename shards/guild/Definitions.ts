import { Effect, Schema } from "effect"
import type { SqlClient, SqlError, Statement } from "effect/sql"
import type { BadRequest, Forbidden, NotFound } from "../../src/model/Errors.ts"
import type { GuildState } from "./State.ts"

/**
 * How the guild actor grows: every write and read inside a guild is a
 * definition here, in a file of its sub-domain (operations/*.ts), listed once
 * in operations/index.ts. The actor runs any of them the same way, so adding
 * a capability never touches the actor, its protocol or the HTTP plumbing.
 *
 * A write decides from the state alone (no clock, no ids of its own: the
 * caller fixes `now` and hands in new ids), so a write delivered again decides
 * the same. The actor commits what it decided (its rows, its audit entries and
 * the operation record) in one transaction, then publishes the next state and
 * its events, then answers.
 */

export type GuildError = BadRequest | Forbidden | NotFound

/** What a write knows besides its own fields. */
export interface WriteContext {
  readonly guildId: string
  /** The user acting. */
  readonly actorId: string
  /** A snowflake: the audit entries of this write take it (and it + 1, ...) as ids. */
  readonly operationId: string
  /** `X-Audit-Log-Reason`. */
  readonly reason: string | null
  /** Milliseconds since the epoch, fixed by the caller. */
  readonly now: number
}

/** One audit-log entry (AuditLogEntryResponse without id, user and reason, which the actor adds). */
export interface AuditEntry {
  readonly actionType: number
  readonly targetId: string | null
  readonly changes: ReadonlyArray<{ readonly key: string; readonly old_value?: unknown; readonly new_value?: unknown }>
  readonly options?: Readonly<Record<string, string>>
}

/** A gateway dispatch (conventions.md, Gateway): `t` and `d` of the event. */
export interface GuildEvent {
  readonly type: string
  readonly data: unknown
}

/** A column value of a batched row; the sink's statement casts it to the column's type. */
export type SqlValue = string | number | boolean | null

/**
 * Statements that write the rows of many writes at once: a batch hands them
 * every row its writes left for the sink, at most one per key, the last one.
 * They run in order, or as the parts of the batch's one statement when the
 * batch writes nothing else (BatchStatements.ts).
 */
export interface RowSink {
  readonly name: string
  readonly statements: (
    sql: SqlClient.SqlClient,
    guildId: string,
    rows: ReadonlyArray<ReadonlyArray<SqlValue>>
  ) => ReadonlyArray<Statement.Fragment>
}

/** One row of a write for `sink`; a later row of the same key in the batch replaces it. */
export interface RowWrite {
  readonly sink: RowSink
  readonly key: string
  readonly values: ReadonlyArray<SqlValue>
}

export interface Decision<Reply> {
  readonly next: GuildState
  readonly reply: Reply
  /** The reply's JSON, when the decision rendered it already (a message's window entry): encoding `reply` must give the same. */
  readonly replyJson?: string
  /**
   * The change's rows, for the writes a busy guild takes most: the batch writes
   * the rows of all its writes in one statement per sink (BatchStatements.ts).
   */
  readonly rows?: ReadonlyArray<RowWrite>
  /** Any other statements of the change; they run inside the batch's transaction, in order. */
  readonly persist?: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>
  readonly audit: ReadonlyArray<AuditEntry>
  readonly events: ReadonlyArray<GuildEvent>
  /** The write removed the guild (its `persist` deleted the rows): the actor forgets it and answers UNKNOWN_GUILD. */
  readonly dropsGuild?: boolean
}

/** A reply's schema: it crosses processes as the JSON of its encoded form. */
export type ReplyCodec = Schema.Top & Schema.ConstraintCodec<unknown, unknown, never, never>

/** A decision whose reply is already JSON: what the actor runs, whatever the definition. */
export type Executed = Decision<string>

export interface WriteDefinition<Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec> {
  readonly tag: Tag
  readonly command: Schema.TaggedStruct<Tag, Fields>
  readonly reply: Reply
  readonly decide: (
    state: GuildState,
    command: Schema.TaggedStruct<Tag, Fields>["Type"],
    context: WriteContext
  ) => Effect.Effect<Decision<Reply["Type"]>, GuildError>
  /** `decide`, with the reply as JSON. */
  readonly decideJson: (
    state: GuildState,
    command: Schema.TaggedStruct<Tag, Fields>["Type"],
    context: WriteContext
  ) => Effect.Effect<Executed, GuildError>
  /** `decideJson` for a command of any tag (the actor's dispatch for what came through its mailbox). */
  readonly execute: (state: GuildState, command: unknown, context: WriteContext) => Effect.Effect<Executed, GuildError>
}

export interface ReadDefinition<Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec> {
  readonly tag: Tag
  readonly query: Schema.TaggedStruct<Tag, Fields>
  readonly reply: Reply
  /** `viewerId` is the user asking. */
  readonly run: (
    state: GuildState,
    query: Schema.TaggedStruct<Tag, Fields>["Type"],
    viewerId: string
  ) => Effect.Effect<Reply["Type"], GuildError>
  /** `run`, with the reply as JSON. */
  readonly runJson: (
    state: GuildState,
    query: Schema.TaggedStruct<Tag, Fields>["Type"],
    viewerId: string
  ) => Effect.Effect<string, GuildError>
  /** `runJson` for a query of any tag (the actor's dispatch for what came through its mailbox). */
  readonly answer: (state: GuildState, query: unknown, viewerId: string) => Effect.Effect<string, GuildError>
}

/**
 * `f` for a message of any kind, as the actor's dispatch calls it: the message
 * is checked against `schema` (the dispatch went by its tag, so a mismatch is a bug).
 */
const erased = <S extends Schema.Constraint, Extra, A>(
  tag: string,
  schema: S,
  f: (state: GuildState, message: S["Type"], extra: Extra) => Effect.Effect<A, GuildError>
) => {
  const matches = Schema.is(schema)
  return (state: GuildState, message: unknown, extra: Extra): Effect.Effect<A, GuildError> =>
    matches(message) ? f(state, message, extra) : Effect.die(new Error(`guild operation ${tag} got a message of another kind`))
}

/** The JSON of a reply, as it crosses processes. */
const toJson = <Reply extends ReplyCodec>(reply: Reply) => {
  const encode = Schema.encodeSync(reply)
  return (value: Reply["Type"]): string => JSON.stringify(encode(value))
}

export const write = <const Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
  tag: Tag,
  fields: Fields,
  reply: Reply,
  decide: WriteDefinition<Tag, Fields, Reply>["decide"]
): WriteDefinition<Tag, Fields, Reply> => {
  const command = Schema.TaggedStruct(tag, fields)
  const json = toJson(reply)
  const decideJson: WriteDefinition<Tag, Fields, Reply>["decideJson"] = (state, message, context) =>
    Effect.map(decide(state, message, context), (d) => ({ ...d, reply: d.replyJson ?? json(d.reply) }))
  return { tag, command, reply, decide, decideJson, execute: erased(tag, command, decideJson) }
}

/**
 * A read. `json`, when given, renders the reply without walking its schema: for
 * a hot read whose parts the state renders once and keeps (it must give what
 * encoding the reply gives).
 */
export const read = <const Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
  tag: Tag,
  fields: Fields,
  reply: Reply,
  run: ReadDefinition<Tag, Fields, Reply>["run"],
  json: (value: Reply["Type"]) => string = toJson(reply)
): ReadDefinition<Tag, Fields, Reply> => {
  const query = Schema.TaggedStruct(tag, fields)
  const runJson: ReadDefinition<Tag, Fields, Reply>["runJson"] = (state, message, viewerId) =>
    Effect.map(run(state, message, viewerId), json)
  return { tag, query, reply, run, runJson, answer: erased(tag, query, runJson) }
}

/** A decision with nothing to audit or announce, e.g. a no-op. */
export const unchanged = <Reply>(state: GuildState, reply: Reply): Decision<Reply> => ({
  next: state,
  reply,
  audit: [],
  events: []
})

