import { Effect, Schema } from "effect"
import { isJsonText, type ReplyCodec } from "./Definitions.ts"

interface Listed {
  readonly tag: string
}

/**
 * One actor's list of definitions, and what its callers and its mailbox need
 * of it: the schemas its commands and queries travel as, the definition of a
 * tag, and the check that a definition handed to a client is listed (an
 * unlisted one could not cross to an actor in another process).
 */
export const registryOf = <
  const Writes extends ReadonlyArray<Listed & { readonly command: Schema.Top }>,
  const Reads extends ReadonlyArray<Listed & { readonly query: Schema.Top }>
>(listedIn: string, writes: Writes, reads: Reads) => {
  /** Any write command, as it travels to the actor. */
  const WriteCommand = Schema.Union(writes.map((w): Writes[number]["command"] => w.command))
  /** Any read query, as it travels to the actor. */
  const ReadQuery = Schema.Union(reads.map((r): Reads[number]["query"] => r.query))
  const writesByTag: ReadonlyMap<string, Writes[number]> = new Map(writes.map((w) => [w.tag, w]))
  const readsByTag: ReadonlyMap<string, Reads[number]> = new Map(reads.map((r) => [r.tag, r]))
  const listedWrites: ReadonlySet<Listed> = new Set(writes)
  const listedReads: ReadonlySet<Listed> = new Set(reads)
  const isWriteCommand = Schema.is(WriteCommand)
  const isReadQuery = Schema.is(ReadQuery)
  const unlisted = (definition: Listed) => Effect.die(new Error(`${definition.tag} is not listed in ${listedIn}`))
  return {
    WriteCommand,
    ReadQuery,
    writeOf: (tag: string) => writesByTag.get(tag),
    readOf: (tag: string) => readsByTag.get(tag),
    isListedWrite: (definition: Listed): boolean => listedWrites.has(definition),
    unlisted,
    /** `command` as it travels to the actor; dies when its definition is not listed. */
    travellingCommand: <C>(definition: Listed, command: C): Effect.Effect<C & typeof WriteCommand.Type> =>
      listedWrites.has(definition) && isWriteCommand(command) ? Effect.succeed(command) : unlisted(definition),
    /** `query` as it travels to the actor; dies when its definition is not listed. */
    travellingQuery: <Q>(definition: Listed, query: Q): Effect.Effect<Q & typeof ReadQuery.Type> =>
      listedReads.has(definition) && isReadQuery(query) ? Effect.succeed(query) : unlisted(definition)
  }
}

/** A reply that crossed processes as JSON (`toJson`); one that does not decode is the actor's bug, not the caller's. */
export const decodeReply = <Reply extends ReplyCodec>(reply: Reply, json: string): Effect.Effect<Reply["Type"]> =>
  Effect.orDie(Schema.decodeUnknownEffect(reply)(isJsonText(reply) ? (json === "null" ? null : json) : JSON.parse(json)))
