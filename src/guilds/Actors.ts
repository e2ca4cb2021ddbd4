import { Cause, Context, Effect, Exit, Layer, Option, Schema } from "effect"
import type { HttpServerResponse } from "effect/http"
import { jsonResponse } from "../http/SharedBodies.ts"
import { AppConfig } from "../platform/Config.ts"
import { actorCallSeries, type ActorCallKind, type ActorCallOutcome, type ActorCallPlace, MetricsOn, seconds } from "../platform/Metrics.ts"
import type { GuildRead } from "../../shards/guild/Reads.ts"
import type { GuildError, ReadDefinition, ReplyCodec, WriteDefinition } from "../../shards/guild/Definitions.ts"
import type { GuildState } from "../../shards/guild/State.ts"
import { isListedWrite, travellingCommand, travellingQuery, unlisted } from "../../shards/guild/operations/index.ts"
import { mapAnswered } from "../../shards/actors/Answered.ts"
import { decodeReply } from "../../shards/actors/Registry.ts"
import { Guild } from "../../shards/guild/Protocol.ts"
import { LiveActors } from "../../shards/LiveActors.ts"
import { User } from "../../shards/user/Protocol.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import type { GuildId, UserId } from "../model/Ids.ts"
import { boundedBy } from "./Bounded.ts"
import { actorUnavailable, BadRequest, Forbidden, NotFound, Unavailable } from "../model/Errors.ts"

type DomainError = BadRequest | Forbidden | NotFound

/** Who writes, why (the audit log's reason) and, for a durable job, under which operation id. */
export interface WriteBy {
  readonly actorId: string
  readonly reason?: string | null | undefined
  /** A durable job's own operation id: the actor answers a replay with the stored result instead of writing twice. */
  readonly operationId?: string | undefined
}

const isDomainError = (e: unknown): e is DomainError =>
  e instanceof BadRequest || e instanceof Forbidden || e instanceof NotFound

const outcomeOf = (exit: Exit.Exit<unknown, unknown>): ActorCallOutcome => {
  if (Exit.isSuccess(exit)) return "ok"
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return "failed"
  return isDomainError(error.value) ? "refused" : error.value instanceof Unavailable ? "unavailable" : "failed"
}

/**
 * Wraps actor calls of one kind and place so each is counted by outcome
 * (guildhall_actor_calls_total); calls through the mailbox are timed too,
 * local ones (microseconds) are not.
 */
const countedCalls = (kind: ActorCallKind, place: ActorCallPlace) => {
  const record = actorCallSeries(kind, place)
  if (place === "local") {
    return <A, E>(call: Effect.Effect<A, E>): Effect.Effect<A, E> => {
      // A read of the published state mostly answers at once, as an Exit (Answered.ts): counted now, it adds no step to the request.
      if (Exit.isExit(call)) {
        record(outcomeOf(call), 0)
        return call
      }
      return Effect.onExit(call, (exit) => {
        record(outcomeOf(exit), 0)
        return Effect.void
      })
    }
  }
  return <A, E>(call: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      const start = seconds()
      return Effect.onExit(call, (exit) => {
        record(outcomeOf(exit), seconds() - start)
        return Effect.void
      })
    })
}

const uncounted = <A, E>(call: Effect.Effect<A, E>): Effect.Effect<A, E> => call

type ClientOf<T> = T extends Effect.Effect<infer Make, infer _E, infer _R> ? Make : never
type GuildClient = ReturnType<ClientOf<typeof Guild.client>>
type UserClient = ReturnType<ClientOf<typeof User.client>>

/**
 * The HTTP side's handle on the actors. Every call is bounded: an actor on a
 * dead runner blocks until its shard moves, and the caller gets 503 (outcome
 * unknown, safe to retry with the same operation) rather than a hung request.
 *
 * Reads of a guild whose actor lives in this process (the embedded default)
 * are applied to the state it published after its last committed change:
 * what its own read handlers would see, without the round trip through its
 * mailbox, which costs more than the rest of the request. Reads of a guild not
 * loaded here go to its actor, wherever it lives, which loads it.
 */
export class Actors extends Context.Service<Actors, {
  readonly guild: (guildId: GuildId) => GuildClient
  readonly user: (userId: UserId) => UserClient
  readonly bounded: <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.Effect<A, DomainError | Unavailable, R>
  /**
   * A write of shards/guild/operations, by `actorId`, through the guild's actor
   * (a new operation id, the clock read here: a redelivery decides the same).
   */
  readonly write: <Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    guildId: GuildId,
    definition: WriteDefinition<Tag, Fields, Reply>,
    fields: Schema.TaggedStruct<Tag, Fields>["~type.make.in"],
    by: WriteBy
  ) => Effect.Effect<Reply["Type"], DomainError | Unavailable>
  /** `write`, answered with the reply as the JSON the actor encoded with the definition's reply schema. */
  readonly writeJson: <Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    guildId: GuildId,
    definition: WriteDefinition<Tag, Fields, Reply>,
    fields: Schema.TaggedStruct<Tag, Fields>["~type.make.in"],
    by: WriteBy
  ) => Effect.Effect<string, DomainError | Unavailable>
  /**
   * `write`, answered with the actor's reply as the response body, as it is: for
   * endpoints whose success schema is the definition's reply, the JSON the actor
   * encoded with that schema is already the body (decoding and encoding it again
   * cost a fifth of a member update).
   */
  readonly writeAsResponse: <Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    guildId: GuildId,
    definition: WriteDefinition<Tag, Fields, Reply>,
    fields: Schema.TaggedStruct<Tag, Fields>["~type.make.in"],
    by: WriteBy
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, DomainError | Unavailable>
  /** A read of shards/guild/operations for `viewerId`: here when the actor lives here, else through it. */
  readonly read: <Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    guildId: GuildId,
    definition: ReadDefinition<Tag, Fields, Reply>,
    fields: Schema.TaggedStruct<Tag, Fields>["~type.make.in"],
    viewerId: string
  ) => Effect.Effect<Reply["Type"], DomainError | Unavailable>
  /**
   * `read`, answered with the reply's JSON as the response body (as `writeAsResponse`):
   * for endpoints whose success schema is the definition's reply.
   */
  readonly readAsResponse: <Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    guildId: GuildId,
    definition: ReadDefinition<Tag, Fields, Reply>,
    fields: Schema.TaggedStruct<Tag, Fields>["~type.make.in"],
    viewerId: string
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, DomainError | Unavailable>
  /** `read` of the guild: here when its actor lives here, else `remote` asks the actor. */
  readonly readGuild: <A, E>(
    guildId: GuildId,
    read: GuildRead<A>,
    remote: (guild: GuildClient) => Effect.Effect<A, E>
  ) => Effect.Effect<A, DomainError | Unavailable>
}>()("guildhall/Actors") {
  static readonly layer = Layer.effect(
    Actors,
    Effect.gen(function*() {
      const { actorCallTimeoutMillis, actorLocalReads } = yield* AppConfig
      const live = yield* LiveActors
      const guild = yield* Guild.client
      const user = yield* User.client
      const snowflakes = yield* Snowflakes
      // With METRICS off the calls are not wrapped at all.
      const counted = (yield* MetricsOn)
        ? {
          localRead: countedCalls("read", "local"),
          remoteRead: countedCalls("read", "remote"),
          localWrite: countedCalls("write", "local"),
          remoteWrite: countedCalls("write", "remote")
        }
        : { localRead: uncounted, remoteRead: uncounted, localWrite: uncounted, remoteWrite: uncounted }
      const withinBound = boundedBy(actorCallTimeoutMillis)
      const bounded = <A, E, R>(call: Effect.Effect<A, E, R>): Effect.Effect<A, DomainError | Unavailable, R> =>
        withinBound(call).pipe(
          Effect.catch((e: E | Unavailable) =>
            isDomainError(e) || e instanceof Unavailable
              ? Effect.fail(e)
              : Effect.andThen(Effect.logWarning("actor call failed", e), Effect.fail(actorUnavailable()))
          )
        )
      const readGuild = <A, E>(guildId: GuildId, read: GuildRead<A>, remote: (guild: GuildClient) => Effect.Effect<A, E>) => {
        const published = actorLocalReads ? live.guilds.get(guildId) : undefined
        return published === undefined
          ? counted.remoteRead(bounded(remote(guild(guildId))))
          : counted.localRead(read(published.state))
      }
      const writeJson: Actors["Service"]["writeJson"] = (guildId, definition, fields, by) => {
        if (!isListedWrite(definition)) return unlisted(definition)
        const command = definition.command.make(fields)
        const payload = {
          operationId: by.operationId ?? snowflakes.next(),
          actorId: by.actorId,
          reason: by.reason ?? null,
          now: Date.now(),
          command
        }
        // Through the mailbox the command travels as one of the registered kinds.
        // Checked only when it goes that way: a write to an actor of this process skips the schema check.
        const remote = Effect.suspend(() =>
          Effect.flatMap(travellingCommand(definition, command), (command) => guild(guildId).Write({ ...payload, command })))
        const published = actorLocalReads ? live.guilds.get(guildId) : undefined
        if (published === undefined) return counted.remoteWrite(bounded(remote))
        // The actor stopped before answering: its mailbox starts it again, and the operation id keeps the write single.
        // A durable job's own operation id may have committed before; an id made just now cannot have.
        const local = Effect.catchTag(
          published.write(payload, {
            fresh: by.operationId === undefined,
            decide: (state, context) => definition.decideJson(state, command, context)
          }),
          "ActorStopped",
          () => remote
        )
        return counted.localWrite(bounded(local))
      }
      const write: Actors["Service"]["write"] = (guildId, definition, fields, by) =>
        Effect.flatMap(writeJson(guildId, definition, fields, by), (json) => decodeReply(definition.reply, json))
      const writeAsResponse: Actors["Service"]["writeAsResponse"] = (guildId, definition, fields, by) =>
        Effect.map(writeJson(guildId, definition, fields, by), jsonResponse)

      /** A read answered from the published state when the actor lives here (`local`), else by the actor, as JSON (`fromActor`). */
      const readVia = <Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec, A>(
        guildId: GuildId,
        definition: ReadDefinition<Tag, Fields, Reply>,
        fields: Schema.TaggedStruct<Tag, Fields>["~type.make.in"],
        viewerId: string,
        local: (state: GuildState, query: Schema.TaggedStruct<Tag, Fields>["Type"]) => Effect.Effect<A, GuildError>,
        fromActor: (json: string) => Effect.Effect<A>
      ): Effect.Effect<A, DomainError | Unavailable> => {
        const query = definition.query.make(fields)
        const published = actorLocalReads ? live.guilds.get(guildId) : undefined
        if (published !== undefined) return counted.localRead(local(published.state, query))
        return Effect.flatMap(travellingQuery(definition, query), (query) =>
          Effect.flatMap(counted.remoteRead(bounded(guild(guildId).Read({ viewerId, query }))), fromActor))
      }
      const read: Actors["Service"]["read"] = (guildId, definition, fields, viewerId) =>
        readVia(guildId, definition, fields, viewerId, (state, query) => definition.run(state, query, viewerId), (json) =>
          decodeReply(definition.reply, json))
      const readAsResponse: Actors["Service"]["readAsResponse"] = (guildId, definition, fields, viewerId) =>
        readVia(guildId, definition, fields, viewerId, (state, query) =>
          mapAnswered(definition.runJson(state, query, viewerId), jsonResponse), (json) => Effect.succeed(jsonResponse(json)))

      return Actors.of({ guild, user, bounded, write, writeJson, writeAsResponse, read, readAsResponse, readGuild })
    })
  )
}
