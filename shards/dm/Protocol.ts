import { Schema } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { GroupDmPatch } from "../../src/model/Dms.ts"
import { MessageCreateRequest, MessageUpdateRequest } from "../../src/model/MessageRequests.ts"
import { MessageAttachmentResponse, ReferencedMessage } from "../../src/model/Messages.ts"
import { UserPartialResponse } from "../../src/model/Users.ts"
import { GuildErrors as DmErrors } from "../guild/Protocol.ts"

/**
 * The actor of one DM or group DM channel (entity id: the channel id): the
 * only writer of the channel and its messages, so a channel's messages are
 * numbered in the order it commits them. Every write is committed to
 * Postgres before it is answered, then announced to the recipients' sessions.
 * Replies are JSON (a channel or a message as the API shows it).
 */

/** Opens the channel for `userIds` (CHANNEL_CREATE to each who had it closed); answers the channel as `viewerId` sees it. */
export const Announce = Rpc.make("Announce", {
  payload: { userIds: Schema.Array(Schema.String), viewerId: Schema.String },
  success: Schema.String,
  error: DmErrors
})

/** The channel as the recipient `viewerId` sees it. */
export const View = Rpc.make("View", { payload: { viewerId: Schema.String }, success: Schema.String, error: DmErrors })

/**
 * A new message; `operationId` (a snowflake) becomes its id unless the channel's last id is above it.
 * `uploads`: the files of a multipart create, already stored; `forwarded`: the message a forward
 * copies, read by the HTTP side as the actor may read it, with its guild (null: a DM).
 */
export const Send = Rpc.make("Send", {
  payload: {
    operationId: Schema.String,
    actorId: Schema.String,
    now: Schema.Number,
    request: MessageCreateRequest,
    uploads: Schema.optional(Schema.Array(MessageAttachmentResponse)),
    forwarded: Schema.optional(Schema.Struct({ message: ReferencedMessage, guildId: Schema.NullOr(Schema.String) }))
  },
  success: Schema.String,
  error: DmErrors
})

/** Whether the actor may send here now (a recipient, no block): asked before a multipart create's files are read. */
export const CheckSend = Rpc.make("CheckSend", { payload: { actorId: Schema.String }, error: DmErrors })

export const Edit = Rpc.make("Edit", {
  payload: { actorId: Schema.String, now: Schema.Number, messageId: Schema.String, patch: MessageUpdateRequest },
  success: Schema.String,
  error: DmErrors
})

export const Delete = Rpc.make("Delete", {
  payload: { actorId: Schema.String, messageId: Schema.String },
  error: DmErrors
})

/** DELETE /channels/{id}/messages/{id}/attachments/{id}: the author's own message only. */
export const DeleteAttachment = Rpc.make("DeleteAttachment", {
  payload: { actorId: Schema.String, messageId: Schema.String, attachmentId: Schema.String },
  error: DmErrors
})

/** PATCH of a group DM. */
export const Update = Rpc.make("Update", {
  payload: { actorId: Schema.String, patch: GroupDmPatch },
  success: Schema.String,
  error: DmErrors
})

/** PUT /channels/{id}/recipients/{user}: the HTTP side checked the user exists and is the actor's friend. */
export const AddRecipient = Rpc.make("AddRecipient", {
  payload: { actorId: Schema.String, user: UserPartialResponse },
  error: DmErrors
})

/** DELETE /channels/{id}/recipients/{user}, and a recipient leaving a group DM. */
export const RemoveRecipient = Rpc.make("RemoveRecipient", {
  payload: { actorId: Schema.String, userId: Schema.String },
  error: DmErrors
})

/** DELETE /channels/{id}: closes a DM for the actor, or leaves a group DM. */
export const Close = Rpc.make("Close", { payload: { actorId: Schema.String }, error: DmErrors })

/** Whether the actor may ring the channel's other recipients. */
export const CallEligibility = Rpc.make("CallEligibility", {
  payload: { actorId: Schema.String },
  success: Schema.Struct({ ringable: Schema.Boolean, silent: Schema.Boolean }),
  error: DmErrors
})

/** ring (starts the call if there is none), stop (stops ringing; the actor when nobody is named), end. */
export const CallAction = Rpc.make("CallAction", {
  payload: {
    actorId: Schema.String,
    action: Schema.Literals(["ring", "stop", "end"]),
    recipients: Schema.optional(Schema.Array(Schema.String))
  },
  error: DmErrors
})

/** PATCH /channels/{id}/call: the call's voice region (null: automatic; absent: unchanged). */
export const CallRegion = Rpc.make("CallRegion", {
  payload: { actorId: Schema.String, region: Schema.optional(Schema.NullOr(Schema.String)) },
  error: DmErrors
})

/** POST /channels/{id}/typing: TYPING_START to the recipients. */
export const Typing = Rpc.make("Typing", { payload: { actorId: Schema.String, now: Schema.Number }, error: DmErrors })

/** PUT (pinned) and DELETE /channels/{id}/pins/{message_id}. */
export const Pin = Rpc.make("Pin", {
  payload: { actorId: Schema.String, messageId: Schema.String, pinned: Schema.Boolean, now: Schema.Number },
  error: DmErrors
})

/** POST /channels/{id}/messages/{id}/ack: the actor's read state of the channel. */
export const Ack = Rpc.make("Ack", {
  payload: {
    actorId: Schema.String,
    messageId: Schema.String,
    mentionCount: Schema.optional(Schema.Int),
    manual: Schema.optional(Schema.Boolean)
  },
  error: DmErrors
})

export const DmChannel = Entity.make("DmChannel", [
  Announce,
  View,
  Send,
  CheckSend,
  Edit,
  Delete,
  DeleteAttachment,
  Update,
  AddRecipient,
  RemoveRecipient,
  Close,
  CallEligibility,
  CallAction,
  CallRegion,
  Typing,
  Pin,
  Ack
])
