import { Context, Effect, Layer, type Schema } from "effect"
import type { HttpServerResponse } from "effect/http"
import { jsonResponse } from "../http/SharedBodies.ts"
import { AppConfig } from "../platform/Config.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { decodeReply } from "../../shards/actors/Registry.ts"
import { LiveActors } from "../../shards/LiveActors.ts"
import type { ReadDefinition, ReplyCodec, UserError, WriteDefinition } from "../../shards/user/Definitions.ts"
import { getAccount } from "../../shards/user/operations/Account.ts"
import { User } from "../../shards/user/Protocol.ts"
import { isListedWrite, travellingCommand, travellingQuery, unlisted } from "../../shards/user/operations/index.ts"
import type { UserPrivateResponse } from "../model/Users.ts"
import type { Unavailable } from "../model/Errors.ts"
import { Actors } from "./Actors.ts"

type Fields<Tag extends string, F extends Schema.Struct.Fields> = Schema.TaggedStruct<Tag, F>["~type.make.in"]

/**
 * The HTTP side's handle on user actors, as `Actors` is on guild actors: every
 * call bounded, reads of a user whose actor lives in this process answered
 * from the state it published, writes queued straight into its batches.
 */
export class UserActors extends Context.Service<UserActors, {
  /** A write of shards/user/operations to `userId`'s state, by `actorId` (the user, or an operator or job). */
  readonly write: <Tag extends string, F extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    userId: string,
    definition: WriteDefinition<Tag, F, Reply>,
    fields: Fields<Tag, F>,
    by: { readonly actorId: string; readonly operationId?: string | undefined }
  ) => Effect.Effect<Reply["Type"], UserError | Unavailable>
  /** `write`, with the actor's JSON as the response body. */
  readonly writeAsResponse: <Tag extends string, F extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    userId: string,
    definition: WriteDefinition<Tag, F, Reply>,
    fields: Fields<Tag, F>,
    by: { readonly actorId: string; readonly operationId?: string | undefined }
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, UserError | Unavailable>
  readonly read: <Tag extends string, F extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    userId: string,
    definition: ReadDefinition<Tag, F, Reply>,
    fields: Fields<Tag, F>
  ) => Effect.Effect<Reply["Type"], UserError | Unavailable>
  /** `read`, with the reply's JSON as the response body. */
  readonly readAsResponse: <Tag extends string, F extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    userId: string,
    definition: ReadDefinition<Tag, F, Reply>,
    fields: Fields<Tag, F>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, UserError | Unavailable>
  /**
   * After a flow changed the account in Postgres: the actor reads it again and tells the user's sessions (USER_UPDATE).
   * `actorId`: who changed it, for the account's change log (the user when absent).
   */
  readonly refresh: (userId: string, actorId?: string) => Effect.Effect<UserPrivateResponse, UserError | Unavailable>
}>()("guildhall/UserActors") {
  static readonly layer = Layer.effect(
    UserActors,
    Effect.gen(function*() {
      const { actorLocalReads } = yield* AppConfig
      const live = yield* LiveActors
      const client = yield* User.client
      const { bounded } = yield* Actors
      const snowflakes = yield* Snowflakes
      const published = (userId: string) => (actorLocalReads ? live.users.get(userId) : undefined)

      const writeJson = <Tag extends string, F extends Schema.Struct.Fields, Reply extends ReplyCodec>(
        userId: string,
        definition: WriteDefinition<Tag, F, Reply>,
        fields: Fields<Tag, F>,
        by: { readonly actorId: string; readonly operationId?: string | undefined }
      ) => {
        if (!isListedWrite(definition)) return unlisted(definition)
        const command = definition.command.make(fields)
        const payload = { operationId: by.operationId ?? snowflakes.next(), actorId: by.actorId, now: Date.now() }
        const remote = Effect.suspend(() =>
          Effect.flatMap(travellingCommand(definition, command), (command) => client(userId).Write({ ...payload, command })))
        const here = published(userId)
        // The actor stopped before answering: its mailbox starts it again, and the operation id keeps the write single.
        return bounded(here === undefined ? remote : Effect.catchTag(
          here.write({ ...payload, reason: null }, {
            fresh: by.operationId === undefined,
            decide: (state, context) => definition.decideJson(state, command, context)
          }),
          "ActorStopped",
          () => remote
        ))
      }

      const readJson = <Tag extends string, F extends Schema.Struct.Fields, Reply extends ReplyCodec>(
        userId: string,
        definition: ReadDefinition<Tag, F, Reply>,
        fields: Fields<Tag, F>
      ) => {
        const query = definition.query.make(fields)
        const here = published(userId)
        if (here !== undefined) return definition.runJson(here.state, query, userId)
        return Effect.flatMap(travellingQuery(definition, query), (query) => bounded(client(userId).Read({ viewerId: userId, query })))
      }

      return UserActors.of({
        write: (userId, definition, fields, by) =>
          Effect.flatMap(writeJson(userId, definition, fields, by), (json) => decodeReply(definition.reply, json)),
        writeAsResponse: (userId, definition, fields, by) => Effect.map(writeJson(userId, definition, fields, by), jsonResponse),
        read: (userId, definition, fields) => {
          const here = published(userId)
          return here === undefined
            ? Effect.flatMap(readJson(userId, definition, fields), (json) => decodeReply(definition.reply, json))
            : definition.run(here.state, definition.query.make(fields), userId)
        },
        readAsResponse: (userId, definition, fields) => Effect.map(readJson(userId, definition, fields), jsonResponse),
        refresh: (userId, actorId) =>
          Effect.flatMap(bounded(client(userId).Refresh(actorId === undefined ? {} : { actorId })), (json) => decodeReply(getAccount.reply, json))
      })
    })
  )
}
