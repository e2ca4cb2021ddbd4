import { Context, Effect, Layer } from "effect"
import type { HttpServerResponse } from "effect/http"
import { DmChannel } from "../../shards/dm/Protocol.ts"
import { Actors } from "../guilds/Actors.ts"
import type { ChannelPatchRequest } from "../model/Channels.ts"
import { type BadRequest, type Forbidden, invalidField, missingAccess, type NotFound, type Unavailable, unknown } from "../model/Errors.ts"
import { jsonResponse } from "../model/Common.ts"
import { MessagesRepo } from "../messages/Repo.ts"
import { DEFAULT_LIMIT, type MessageCreateRequest, type MessageUpdateRequest } from "../model/MessageRequests.ts"
import type { MessageAttachmentResponse, MessageResponse, ReferencedMessage } from "../model/Messages.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { imageHash } from "../users/Images.ts"
import { DmsRepo } from "./Repo.ts"
import { DmChannelType, type GroupDmPatch } from "../model/Dms.ts"

type Failure = BadRequest | Forbidden | NotFound | Unavailable
type Json = Effect.Effect<HttpServerResponse.HttpServerResponse, Failure>

/** What a create brings besides its request: stored files, and the message a forward copies with its guild. */
interface SendExtras {
  readonly uploads?: ReadonlyArray<MessageAttachmentResponse> | undefined
  readonly forwarded?: { readonly message: ReferencedMessage; readonly guildId: string | null } | undefined
}

interface PageQuery {
  readonly limit?: number | undefined
  readonly before?: string | undefined
  readonly after?: string | undefined
  readonly around?: string | undefined
}

/**
 * What the channel and message routes do for a DM channel (ChannelLookup's
 * `byOwner` sends them here): writes through the channel's actor, reads of messages
 * from Postgres once the reader is known to be a recipient.
 */
export class Dms extends Context.Service<Dms, {
  /** The channel's actor, every call bounded like the guild actors' (503 when it does not answer). */
  readonly call: <A, E>(channelId: string, f: (actor: DmClient) => Effect.Effect<A, E>) => Effect.Effect<A, Failure>
  readonly view: (channelId: string, userId: string) => Json
  readonly update: (channelId: string, userId: string, patch: ChannelPatchRequest) => Json
  readonly close: (channelId: string, userId: string) => Effect.Effect<void, Failure>
  readonly listMessages: (channelId: string, userId: string, query: PageQuery) => Effect.Effect<ReadonlyArray<MessageResponse>, Failure>
  readonly getMessage: (channelId: string, userId: string, messageId: string) => Effect.Effect<MessageResponse, Failure>
  readonly send: (channelId: string, userId: string, request: MessageCreateRequest, extras?: SendExtras) => Json
  /** Whether `userId` may send here now (refused otherwise), before a multipart create's files are read. */
  readonly maySend: (channelId: string, userId: string) => Effect.Effect<boolean, Failure>
  readonly edit: (channelId: string, userId: string, messageId: string, patch: MessageUpdateRequest) => Json
  readonly remove: (channelId: string, userId: string, messageId: string) => Effect.Effect<void, Failure>
  readonly deleteAttachment: (channelId: string, userId: string, messageId: string, attachmentId: string) => Effect.Effect<void, Failure>
  /** Fails unless `userId` is a recipient (reads served from Postgres). */
  readonly recipient: (channelId: string, userId: string) => Effect.Effect<void, Forbidden>
  readonly typing: (channelId: string, userId: string) => Effect.Effect<void, Failure>
  readonly pin: (channelId: string, userId: string, messageId: string, pinned: boolean) => Effect.Effect<void, Failure>
  readonly ack: (
    channelId: string,
    userId: string,
    messageId: string,
    options: { readonly mentionCount?: number | undefined; readonly manual?: boolean | undefined }
  ) => Effect.Effect<void, Failure>
}>()("guildhall/Dms") {
  static readonly layer = Layer.effect(
    Dms,
    Effect.gen(function*() {
      const repo = yield* DmsRepo
      const messages = yield* MessagesRepo
      const actors = yield* Actors
      const snowflakes = yield* Snowflakes
      const client = yield* DmChannel.client

      const call = <A, E>(channelId: string, f: (actor: DmClient) => Effect.Effect<A, E>) => actors.bounded(f(client(channelId)))
      const json = <E>(effect: Effect.Effect<string, E>) => Effect.map(effect, jsonResponse)

      /** Reads check membership in Postgres: no actor round trip for them. */
      const recipient = (channelId: string, userId: string) =>
        Effect.flatMap(repo.isRecipient(channelId, userId), (yes) => (yes ? Effect.void : Effect.fail(missingAccess())))

      const groupPatch = (patch: ChannelPatchRequest): Effect.Effect<GroupDmPatch, BadRequest> =>
        Effect.gen(function*() {
          if (patch.type !== undefined && patch.type !== DmChannelType.GROUP_DM) {
            return yield* invalidField("type", "INVALID_CHANNEL", "A group DM stays a group DM")
          }
          let icon: string | null | undefined = patch.icon
          if (typeof icon === "string") {
            const checked = imageHash(icon, "icon")
            if ("problem" in checked) {
              return yield* invalidField(checked.problem.path, checked.problem.code ?? "INVALID_IMAGE_DATA", checked.problem.message)
            }
            icon = checked.hash
          }
          return {
            ...(patch.name === undefined ? {} : { name: patch.name }),
            ...(icon === undefined ? {} : { icon }),
            ...(patch.owner_id === undefined ? {} : { owner_id: patch.owner_id }),
            ...(patch.nicks === undefined ? {} : { nicks: patch.nicks })
          }
        })

      return Dms.of({
        call,
        view: (channelId, userId) => json(call(channelId, (a) => a.View({ viewerId: userId }))),
        update: (channelId, userId, patch) =>
          Effect.flatMap(groupPatch(patch), (p) => json(call(channelId, (a) => a.Update({ actorId: userId, patch: p })))),
        close: (channelId, userId) => call(channelId, (a) => a.Close({ actorId: userId })),
        listMessages: (channelId, userId, query) =>
          Effect.andThen(recipient(channelId, userId), messages.page(channelId, { ...query, limit: query.limit ?? DEFAULT_LIMIT })),
        getMessage: (channelId, userId, messageId) =>
          Effect.andThen(
            recipient(channelId, userId),
            Effect.flatMap(messages.find(channelId, messageId), (m) =>
              m === undefined ? Effect.fail(unknown("MESSAGE")) : Effect.succeed(m))
          ),
        send: (channelId, userId, request, extras = {}) =>
          json(call(channelId, (a) =>
            a.Send({
              operationId: snowflakes.next(),
              actorId: userId,
              now: Date.now(),
              request,
              ...(extras.uploads === undefined ? {} : { uploads: extras.uploads }),
              ...(extras.forwarded === undefined ? {} : { forwarded: extras.forwarded })
            }))),
        // Nothing in a DM withholds the right to attach from someone who may send.
        maySend: (channelId, userId) => Effect.as(call(channelId, (a) => a.CheckSend({ actorId: userId })), true),
        edit: (channelId, userId, messageId, patch) =>
          json(call(channelId, (a) => a.Edit({ actorId: userId, now: Date.now(), messageId, patch }))),
        remove: (channelId, userId, messageId) => call(channelId, (a) => a.Delete({ actorId: userId, messageId })),
        deleteAttachment: (channelId, userId, messageId, attachmentId) =>
          call(channelId, (a) => a.DeleteAttachment({ actorId: userId, messageId, attachmentId })),
        recipient,
        typing: (channelId, userId) => call(channelId, (a) => a.Typing({ actorId: userId, now: Date.now() })),
        pin: (channelId, userId, messageId, pinned) =>
          call(channelId, (a) => a.Pin({ actorId: userId, messageId, pinned, now: Date.now() })),
        ack: (channelId, userId, messageId, options) => call(channelId, (a) => a.Ack({ actorId: userId, messageId, ...options }))
      })
    })
  ).pipe(Layer.provide([DmsRepo.layer, MessagesRepo.layer]))
}

type ClientOf<T> = T extends Effect.Effect<infer Make, infer _E, infer _R> ? Make : never
export type DmClient = ReturnType<ClientOf<typeof DmChannel.client>>
