import { Context, Effect, Layer, Schema } from "effect"
import type { HttpServerResponse } from "effect/http"
import type { ReadDefinition, WriteDefinition } from "../../shards/dm/Definitions.ts"
import type { ReplyCodec } from "../../shards/actors/Definitions.ts"
import * as Calls from "../../shards/dm/operations/Calls.ts"
import * as Channel from "../../shards/dm/operations/Channel.ts"
import { travellingCommand, travellingQuery } from "../../shards/dm/operations/index.ts"
import { decodeReply } from "../../shards/actors/Registry.ts"
import * as Messages from "../../shards/dm/operations/Messages.ts"
import { DmChannel } from "../../shards/dm/Protocol.ts"
import { Actors } from "../guilds/Actors.ts"
import { type ChannelPatchRequest, ChannelType } from "../model/Channels.ts"
import { type BadRequest, type Forbidden, invalidField, missingAccess, type NotFound, type Unavailable, unknown } from "../model/Errors.ts"
import { jsonResponse } from "../http/SharedBodies.ts"
import { MessagesRepo } from "../messages/Repo.ts"
import { DEFAULT_LIMIT, type MessageCreateRequest, type MessageUpdateRequest } from "../model/MessageRequests.ts"
import { type MessageAttachmentResponse, MessageReferenceType, type MessageResponse, type ReferencedMessage } from "../model/Messages.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { imageHash } from "../users/Images.ts"
import { DmsRepo } from "./Repo.ts"
import { DmWriteInputs } from "./WriteInputs.ts"
import type { GroupDmPatch } from "../model/Dms.ts"

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
 * `byOwner` sends them here): writes and reads of shards/dm/operations through
 * the channel's actor (`write` / `read`, as src/guilds/Actors.ts for a guild),
 * reads of messages from Postgres once the reader is known to be a recipient.
 */
export class Dms extends Context.Service<Dms, {
  /**
   * A write of shards/dm/operations, by `actorId`, through the channel's actor (a new
   * operation id unless the caller fixed one, the clock read here: a redelivery decides
   * the same), as its reply's JSON. A write sent again under the operation id of one the
   * actor committed answers that one's reply and changes nothing.
   */
  readonly writeJson: <Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    channelId: string,
    definition: WriteDefinition<Tag, Fields, Reply>,
    fields: Schema.TaggedStruct<Tag, Fields>["~type.make.in"],
    by: { readonly actorId: string; readonly operationId?: string | undefined }
  ) => Effect.Effect<string, Failure>
  /** `writeJson`, answered with the reply. */
  readonly write: <Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    channelId: string,
    definition: WriteDefinition<Tag, Fields, Reply>,
    fields: Schema.TaggedStruct<Tag, Fields>["~type.make.in"],
    by: { readonly actorId: string }
  ) => Effect.Effect<Reply["Type"], Failure>
  /** A read of shards/dm/operations for `viewerId`, through the channel's actor. */
  readonly read: <Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
    channelId: string,
    definition: ReadDefinition<Tag, Fields, Reply>,
    fields: Schema.TaggedStruct<Tag, Fields>["~type.make.in"],
    viewerId: string
  ) => Effect.Effect<Reply["Type"], Failure>
  readonly view: (channelId: string, userId: string) => Json
  /** Opens the channel for `userIds`; answers it as `viewerId` sees it. */
  readonly announce: (channelId: string, userIds: ReadonlyArray<string>, viewerId: string) => Effect.Effect<string, Failure>
  readonly update: (channelId: string, userId: string, patch: ChannelPatchRequest) => Json
  readonly close: (channelId: string, userId: string) => Effect.Effect<void, Failure>
  readonly addRecipient: (channelId: string, userId: string, user: typeof Channel.addRecipient.command.Type["user"]) => Effect.Effect<void, Failure>
  readonly removeRecipient: (channelId: string, userId: string, recipientId: string) => Effect.Effect<void, Failure>
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
  readonly callEligibility: (channelId: string, userId: string) => Effect.Effect<{ readonly ringable: boolean; readonly silent: boolean }, Failure>
  readonly callAction: (
    channelId: string,
    userId: string,
    action: "ring" | "stop" | "end",
    recipients?: ReadonlyArray<string> | undefined
  ) => Effect.Effect<void, Failure>
  readonly callRegion: (channelId: string, userId: string, region: string | null | undefined) => Effect.Effect<void, Failure>
}>()("guildhall/Dms") {
  static readonly layer = Layer.effect(
    Dms,
    Effect.gen(function*() {
      const repo = yield* DmsRepo
      const inputs = yield* DmWriteInputs
      const messages = yield* MessagesRepo
      const actors = yield* Actors
      const snowflakes = yield* Snowflakes
      const client = yield* DmChannel.client

      const writeJson: Dms["Service"]["writeJson"] = (channelId, definition, fields, by) => {
        // Through the mailbox the command travels as one of the registered kinds.
        return Effect.flatMap(travellingCommand(definition, definition.command.make(fields)), (command) =>
          actors.bounded(client(channelId).Write({ operationId: by.operationId ?? snowflakes.next(), actorId: by.actorId, now: Date.now(), command })))
      }
      const write: Dms["Service"]["write"] = (channelId, definition, fields, by) => Effect.flatMap(writeJson(channelId, definition, fields, by), (json) => decodeReply(definition.reply, json))
      const readJson = <Tag extends string, Fields extends Schema.Struct.Fields, Reply extends ReplyCodec>(
        channelId: string,
        definition: ReadDefinition<Tag, Fields, Reply>,
        fields: Schema.TaggedStruct<Tag, Fields>["~type.make.in"],
        viewerId: string
      ): Effect.Effect<string, Failure> => {
        return Effect.flatMap(travellingQuery(definition, definition.query.make(fields)), (query) =>
          actors.bounded(client(channelId).Read({ viewerId, query })))
      }
      const read: Dms["Service"]["read"] = (channelId, definition, fields, viewerId) =>
        Effect.flatMap(readJson(channelId, definition, fields, viewerId), (json) => decodeReply(definition.reply, json))

      /** Reads check membership in Postgres: no actor round trip for them. */
      const recipient = (channelId: string, userId: string) =>
        Effect.flatMap(repo.isRecipient(channelId, userId), (yes) => (yes ? Effect.void : Effect.fail(missingAccess())))

      /** The message a write is about, as Postgres holds it (undefined: none). */
      const stored = messages.find

      const groupPatch = (patch: ChannelPatchRequest): Effect.Effect<GroupDmPatch, BadRequest> =>
        Effect.gen(function*() {
          if (patch.type !== undefined && patch.type !== ChannelType.GROUP_DM) {
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
        writeJson,
        write,
        read,
        view: (channelId, userId) => Effect.map(readJson(channelId, Channel.view, {}, userId), jsonResponse),
        announce: (channelId, userIds, viewerId) => writeJson(channelId, Channel.announce, { userIds, viewerId }, { actorId: viewerId }),
        update: (channelId, userId, patch) =>
          Effect.flatMap(groupPatch(patch), (p) =>
            Effect.map(writeJson(channelId, Channel.updateGroup, { patch: p }, { actorId: userId }), jsonResponse)),
        close: (channelId, userId) => Effect.asVoid(writeJson(channelId, Channel.close, {}, { actorId: userId })),
        addRecipient: (channelId, userId, user) =>
          Effect.flatMap(inputs.roomInGroupDms(user.id), (hasRoom) =>
            Effect.asVoid(writeJson(channelId, Channel.addRecipient, { user, hasRoom }, { actorId: userId }))),
        removeRecipient: (channelId, userId, recipientId) =>
          Effect.asVoid(writeJson(channelId, Channel.removeRecipient, { userId: recipientId }, { actorId: userId })),
        listMessages: (channelId, userId, query) =>
          Effect.andThen(recipient(channelId, userId), messages.page(channelId, { ...query, limit: query.limit ?? DEFAULT_LIMIT })),
        getMessage: (channelId, userId, messageId) =>
          Effect.andThen(
            recipient(channelId, userId),
            Effect.flatMap(messages.find(channelId, messageId), (m) =>
              m === undefined ? Effect.fail(unknown("MESSAGE")) : Effect.succeed(m))
          ),
        send: (channelId, userId, request, extras = {}) =>
          Effect.gen(function*() {
            const reference = request.message_reference ?? undefined
            const replied = reference === undefined || reference.type === MessageReferenceType.FORWARD
              ? undefined
              : yield* stored(channelId, reference.message_id)
            const json = yield* writeJson(channelId, Messages.sendMessage, {
              blocked: yield* inputs.blocked(channelId, userId),
              request,
              replied,
              stickers: yield* inputs.stickers(userId, request.sticker_ids ?? []),
              uploads: extras.uploads,
              forwarded: extras.forwarded
            }, { actorId: userId })
            return jsonResponse(json)
          }),
        // Nothing in a DM withholds the right to attach from someone who may send.
        maySend: (channelId, userId) =>
          Effect.flatMap(inputs.blocked(channelId, userId), (blocked) =>
            Effect.as(readJson(channelId, Messages.checkSend, { blocked }, userId), true)),
        edit: (channelId, userId, messageId, patch) =>
          Effect.flatMap(stored(channelId, messageId), (current) =>
            Effect.map(writeJson(channelId, Messages.editMessage, { messageId, stored: current, patch }, { actorId: userId }), jsonResponse)),
        remove: (channelId, userId, messageId) =>
          Effect.flatMap(stored(channelId, messageId), (current) =>
            Effect.asVoid(writeJson(channelId, Messages.deleteMessage, { messageId, stored: current }, { actorId: userId }))),
        deleteAttachment: (channelId, userId, messageId, attachmentId) =>
          Effect.flatMap(stored(channelId, messageId), (current) =>
            Effect.asVoid(writeJson(channelId, Messages.deleteAttachment, { messageId, stored: current, attachmentId }, { actorId: userId }))),
        recipient,
        typing: (channelId, userId) =>
          Effect.flatMap(inputs.blocked(channelId, userId), (blocked) =>
            Effect.asVoid(writeJson(channelId, Messages.startTyping, { blocked }, { actorId: userId }))),
        pin: (channelId, userId, messageId, pinned) =>
          Effect.gen(function*() {
            const current = yield* stored(channelId, messageId)
            const pins = yield* inputs.pins(channelId)
            yield* writeJson(channelId, Messages.pinMessage, { messageId, stored: current, pinned, pins }, { actorId: userId })
          }),
        ack: (channelId, userId, messageId, options) =>
          Effect.asVoid(writeJson(channelId, Messages.ackMessage, { messageId, ...options }, { actorId: userId })),
        callEligibility: (channelId, userId) =>
          Effect.flatMap(inputs.blocked(channelId, userId), (blocked) => read(channelId, Calls.callEligibility, { blocked }, userId)),
        callAction: (channelId, userId, action, recipients) =>
          Effect.flatMap(inputs.blocked(channelId, userId), (blocked) =>
            Effect.asVoid(writeJson(channelId, Calls.callAction, { action, recipients, blocked }, { actorId: userId }))),
        callRegion: (channelId, userId, region) =>
          Effect.asVoid(writeJson(channelId, Calls.callRegion, { region }, { actorId: userId }))
      })
    })
  ).pipe(Layer.provide([DmsRepo.layer, MessagesRepo.layer, DmWriteInputs.layer]))
}
