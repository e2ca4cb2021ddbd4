import { Effect, Schema } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { mapAnswered } from "./Answered.ts"
import type { RowWrite } from "./Rows.ts"

/**
 * How an actor grows: every write and read it runs is a definition, listed
 * once in its registry (shards/guild/operations/index.ts, shards/dm/operations/index.ts).
 * The actor runs any of them the same way, so adding a capability never
 * touches the actor, its protocol or the HTTP plumbing.
 *
 * A write decides from the state alone (no clock, no ids of its own: the
 * caller fixes `now` and hands in new ids), so a write delivered again decides
 * the same. The actor commits what it decided (its rows and the operation
 * record) in one transaction, then publishes the next state and its events,
 * then answers.
 *
 * What differs between actors (their state, what a write knows, what a
 * change carries besides its rows: audit entries, gateway events) are the
 * type parameters; `definitionsFor` makes one actor's `write` and `read`.
 */

/** What every decision has: the next state, the reply, and what to write. */
export interface Decided<State, Reply> {
  readonly next: State
  readonly reply: Reply
  /** The reply's JSON, when the decision rendered it already (a message's window entry): encoding `reply` must give the same. */
  readonly replyJson?: string
  /**
   * The change's rows, for the writes a busy actor takes most: the batch writes
   * the rows of all its writes in one statement per sink (BatchStatements.ts).
   */
  readonly rows?: ReadonlyArray<RowWrite>
  /** Any other statements of the change; they run inside the batch's transaction, in order. */
  readonly persist?: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>
}

/** One actor's decision: what every decision has, and what its changes carry (`Change`). */
export type Decision<State, Change, Reply> = Decided<State, Reply> & Change

/** A reply's schema: it crosses processes as the JSON of its encoded form. */
export type ReplyCodec = Schema.Top & Schema.ConstraintCodec<unknown, unknown, never, never>

export interface WriteDefinition<
  Tag extends string,
  Fields extends Schema.Struct.Fields,
  Reply extends ReplyCodec,
  State,
  Context,
  Change,
  E
> {
  readonly tag: Tag
  readonly command: Schema.TaggedStruct<Tag, Fields>
  readonly reply: Reply
  readonly decide: (
    state: State,
    command: Schema.TaggedStruct<Tag, Fields>["Type"],
    context: Context
  ) => Effect.Effect<Decision<State, Change, Reply["Type"]>, E>
  /** `decide`, with the reply as JSON. */
  readonly decideJson: (
    state: State,
    command: Schema.TaggedStruct<Tag, Fields>["Type"],
    context: Context
  ) => Effect.Effect<Decision<State, Change, string>, E>
  /** `decideJson` for a command of any tag (the actor's dispatch for what came through its mailbox). */
  readonly execute: (state: State, command: unknown, context: Context) => Effect.Effect<Decision<State, Change, string>, E>
}

export interface ReadDefinition<Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec, State, E> {
  readonly tag: Tag
  readonly query: Schema.TaggedStruct<Tag, Fields>
  readonly reply: Reply
  /** `viewerId` is the user asking. */
  readonly run: (
    state: State,
    query: Schema.TaggedStruct<Tag, Fields>["Type"],
    viewerId: string
  ) => Effect.Effect<Reply["Type"], E>
  /** `run`, with the reply as JSON. */
  readonly runJson: (
    state: State,
    query: Schema.TaggedStruct<Tag, Fields>["Type"],
    viewerId: string
  ) => Effect.Effect<string, E>
  /** `runJson` for a query of any tag (the actor's dispatch for what came through its mailbox). */
  readonly answer: (state: State, query: unknown, viewerId: string) => Effect.Effect<string, E>
}

/**
 * The reply of a read that renders its JSON itself (a page of messages from a
 * channel's window), or null when it cannot answer. It crosses processes as
 * that text, not as a JSON string holding it: quoting a page of 50 messages on
 * the shard and unquoting it in the API process was a sixth of a cluster's
 * message list. Its text is never `null` itself (an object or an array).
 */
export const JsonText = Schema.NullOr(Schema.String)

/** Whether a reply is `JsonText`, which crosses processes as itself. */
export const isJsonText = (reply: Schema.Top): boolean => reply === JsonText

/** The JSON of a reply, as it crosses processes (`decodeReply` in Registry.ts reads it). */
export const toJson = <Reply extends ReplyCodec>(reply: Reply): (value: Reply["Type"]) => string => {
  if (isJsonText(reply)) return (value) => typeof value === "string" ? value : "null"
  const encode = Schema.encodeSync(reply)
  return (value) => JSON.stringify(encode(value))
}

/** `write` and `read` for the definitions of one kind of actor (`actor` names it in the dispatch's errors). */
export const definitionsFor = <State, Context, Change, E>(actor: string) => {
  /**
   * `f` for a message of any kind, as the actor's dispatch calls it: the message
   * is checked against `schema` (the dispatch went by its tag, so a mismatch is a bug).
   */
  const erased = <S extends Schema.Constraint, Extra, A>(
    tag: string,
    schema: S,
    f: (state: State, message: S["Type"], extra: Extra) => Effect.Effect<A, E>
  ) => {
    const matches = Schema.is(schema)
    return (state: State, message: unknown, extra: Extra): Effect.Effect<A, E> =>
      matches(message) ? f(state, message, extra) : Effect.die(new Error(`${actor} operation ${tag} got a message of another kind`))
  }

  const write = <const Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    tag: Tag,
    fields: Fields,
    reply: Reply,
    decide: WriteDefinition<Tag, Fields, Reply, State, Context, Change, E>["decide"]
  ): WriteDefinition<Tag, Fields, Reply, State, Context, Change, E> => {
    const command = Schema.TaggedStruct(tag, fields)
    const json = toJson(reply)
    const decideJson: WriteDefinition<Tag, Fields, Reply, State, Context, Change, E>["decideJson"] = (state, message, context) =>
      Effect.map(decide(state, message, context), (d) => ({ ...d, reply: d.replyJson ?? json(d.reply) }))
    return { tag, command, reply, decide, decideJson, execute: erased(tag, command, decideJson) }
  }

  /**
   * A read. `json`, when given, renders the reply without walking its schema: for
   * a hot read whose parts the state renders once and keeps (it must give what
   * encoding the reply gives).
   */
  const read = <const Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    tag: Tag,
    fields: Fields,
    reply: Reply,
    run: ReadDefinition<Tag, Fields, Reply, State, E>["run"],
    json: (value: Reply["Type"]) => string = toJson(reply)
  ): ReadDefinition<Tag, Fields, Reply, State, E> => {
    const query = Schema.TaggedStruct(tag, fields)
    const runJson: ReadDefinition<Tag, Fields, Reply, State, E>["runJson"] = (state, message, viewerId) =>
      mapAnswered(run(state, message, viewerId), json)
    return { tag, query, reply, run, runJson, answer: erased(tag, query, runJson) }
  }

  return { write, read }
}
