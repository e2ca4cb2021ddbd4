import { Effect } from "effect"
import { BadRequest, Forbidden, invalidField } from "../../src/http/Errors.ts"
import type { MessageCreateRequest, MessageUpdateRequest } from "../../src/messages/Requests.ts"
import { MessageFlag, MessageReferenceType, type MessageResponse, MessageType, withoutReferenced } from "../../src/messages/Schemas.ts"
import type { UserPartialResponse } from "../../src/users/Schemas.ts"
import { isEmpty } from "../guild/MessageAccess.ts"
import { checkShape, embedOf, sendableFlags } from "../guild/MessageDraft.ts"
import type { DmState } from "./State.ts"

const USER_MENTION = /<@!?(\d{1,20})>/g

/** The flags an edit may change. */
const EDITABLE_FLAGS = MessageFlag.SUPPRESS_EMBEDS

/** A resend with the same nonce within this long answers the message it made. */
export const NONCE_TTL_MS = 5 * 60_000

/** Recipients `content` pings (only people in the channel can be), and a reply's author unless told not to. */
const mentionsIn = (
  state: DmState,
  content: string,
  allowed: MessageCreateRequest["allowed_mentions"],
  repliedAuthor: UserPartialResponse | undefined
): ReadonlyArray<UserPartialResponse> => {
  const parsesUsers = allowed == null || (allowed.parse?.includes("users") ?? false)
  const ids = [...new Set([...content.matchAll(USER_MENTION)].flatMap((m) => (m[1] ? [m[1]] : [])))]
  const users = ids
    .filter((id) => parsesUsers || (allowed?.users?.includes(id) ?? false))
    .flatMap((id) => {
      const recipient = state.recipients.get(id)
      return recipient === undefined ? [] : [recipient.user]
    })
  const pingsReplied = repliedAuthor !== undefined && (allowed == null || allowed.replied_user === true)
  if (pingsReplied && !users.some((u) => u.id === repliedAuthor.id)) users.push(repliedAuthor)
  return users
}

/**
 * A new message of the channel, or why not. Forwards and stickers are not
 * for DMs here (custom stickers in DMs need premium, which this server does
 * not sell); a reply answers a message of this channel (`replied`, read by
 * the actor from Postgres).
 */
export const draftMessage = (
  state: DmState,
  author: UserPartialResponse,
  id: string,
  request: MessageCreateRequest,
  replied: MessageResponse | undefined,
  now: number
): Effect.Effect<MessageResponse, BadRequest> =>
  Effect.gen(function*() {
    const reference = request.message_reference ?? undefined
    if (reference?.type === MessageReferenceType.FORWARD) {
      return yield* invalidField("message_reference.type", "INVALID_MESSAGE_DATA", "Forwarding into a DM is not supported")
    }
    if ((request.sticker_ids ?? []).length > 0) {
      return yield* invalidField("sticker_ids", "CUSTOM_STICKERS_IN_DMS_REQUIRE_PREMIUM", "Stickers cannot be sent in DMs")
    }
    yield* checkShape(request, false)
    if (reference !== undefined) {
      if ((reference.channel_id ?? state.id) !== state.id) {
        return yield* invalidField("message_reference.channel_id", "INVALID_CHANNEL", "A reply answers a message of its own channel")
      }
      if (replied === undefined) return yield* invalidField("message_reference.message_id", "INVALID_MESSAGE_DATA", "Unknown message")
      if (replied.type !== MessageType.DEFAULT && replied.type !== MessageType.REPLY) {
        return yield* invalidField("message_reference", "CANNOT_REPLY_TO_SYSTEM_MESSAGE", "Cannot reply to a system message")
      }
    }
    const content = request.content ?? ""
    const nonce = request.nonce === undefined ? undefined : String(request.nonce)
    return {
      id,
      channel_id: state.id,
      author,
      type: replied === undefined ? MessageType.DEFAULT : MessageType.REPLY,
      flags: sendableFlags(request.flags),
      content,
      timestamp: new Date(now).toISOString(),
      edited_timestamp: null,
      pinned: false,
      mention_everyone: false,
      tts: request.tts ?? false,
      mentions: mentionsIn(state, content, request.allowed_mentions, replied?.author),
      mention_roles: [],
      embeds: (request.embeds ?? []).map(embedOf),
      attachments: [],
      ...(replied === undefined ? {} : {
        message_reference: { channel_id: state.id, message_id: replied.id, guild_id: null, type: MessageReferenceType.REPLY },
        referenced_message: withoutReferenced(replied)
      }),
      ...(nonce === undefined ? {} : { nonce })
    }
  })

/** The author edits their message: its text, embeds and whether embeds show. Nobody edits another's message in a DM. */
export const editedMessage = (
  state: DmState,
  actorId: string,
  before: MessageResponse,
  patch: MessageUpdateRequest,
  now: number
): Effect.Effect<MessageResponse, BadRequest | Forbidden> =>
  Effect.gen(function*() {
    if (before.author.id !== actorId) {
      return yield* new Forbidden({ code: "CANNOT_EDIT_OTHER_USER_MESSAGE", message: "Cannot edit another user's message" })
    }
    const content = patch.content === undefined ? before.content : patch.content ?? ""
    const embeds = patch.embeds === undefined ? before.embeds : patch.embeds.map(embedOf)
    const kept = patch.attachments === undefined
      ? before.attachments
      : before.attachments.filter((a) => patch.attachments?.some((k) => String(k.id) === a.id))
    const flags = patch.flags === undefined ? before.flags : (before.flags & ~EDITABLE_FLAGS) | (patch.flags & EDITABLE_FLAGS)
    const edited = content !== before.content || patch.embeds !== undefined || kept.length !== before.attachments.length
    const after: MessageResponse = {
      ...before,
      content,
      embeds,
      attachments: kept,
      flags,
      mentions: edited || patch.allowed_mentions !== undefined
        ? mentionsIn(state, content, patch.allowed_mentions, before.referenced_message?.author)
        : before.mentions,
      edited_timestamp: edited ? new Date(now).toISOString() : before.edited_timestamp
    }
    if (isEmpty(after)) return yield* new BadRequest({ code: "CANNOT_SEND_EMPTY_MESSAGE", message: "Cannot send an empty message" })
    return after
  })
