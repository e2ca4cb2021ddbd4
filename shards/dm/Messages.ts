import { Effect } from "effect"
import { BadRequest, Forbidden, invalidField, type NotFound, unknown } from "../../src/model/Errors.ts"
import type { MessageCreateRequest, MessageUpdateRequest } from "../../src/model/MessageRequests.ts"
import {
  type MessageAttachmentResponse,
  MessageFlag,
  MessageReferenceType,
  type MessageResponse,
  type MessageStickerResponse,
  MessageType,
  type ReferencedMessage,
  withoutReferenced
} from "../../src/model/Messages.ts"
import type { UserPartialResponse } from "../../src/model/Users.ts"
import { isEmpty } from "../guild/messages/MessageAccess.ts"
import { checkShape, embedOf, sendableFlags, snapshotOf, stickersNamed } from "../guild/messages/MessageDraft.ts"
import { checkSnapshotEdit, keptAttachments } from "../guild/operations/MessageEdits.ts"
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

/** The stickers a message's `sticker_ids` name, as the author has them (Repo.ts). */
export interface DmStickers {
  /** Stickers of packs the author has. */
  readonly usable: ReadonlyMap<string, MessageStickerResponse>
  /** Ids of guild stickers. */
  readonly guild: ReadonlySet<string>
}

/** What the actor gathered for a new message besides its request. */
export interface DraftParts {
  /** The message a reply answers, as Postgres holds it (read by the caller). */
  readonly replied: MessageResponse | undefined
  /** The message a forward copies, with its guild (null: a DM), as the HTTP side read it. */
  readonly forwarded: { readonly message: ReferencedMessage; readonly guildId: string | null } | undefined
  /** The files of a multipart create, stored. */
  readonly uploads: ReadonlyArray<MessageAttachmentResponse>
  readonly stickers: DmStickers
}

/**
 * Pack stickers go anywhere their owner goes; a guild's own stickers leave it
 * only with premium, which this server does not sell, so none reach a DM.
 */
const dmStickers = (ids: ReadonlyArray<string>, known: DmStickers) =>
  stickersNamed(ids, (id, path) =>
    known.guild.has(id)
      ? Effect.fail(invalidField(path, "CUSTOM_STICKERS_IN_DMS_REQUIRE_PREMIUM", "Guild stickers in DMs need premium"))
      : Effect.succeed(known.usable.get(id)))

/**
 * A new message of the channel, or why not, by the rules guild messages
 * follow (MessageDraft.ts) where a DM has them too. A reply answers a message
 * of this channel; a forward copies one the author could read, wherever it is.
 */
export const draftMessage = (
  state: DmState,
  author: UserPartialResponse,
  id: string,
  request: MessageCreateRequest,
  parts: DraftParts,
  now: number
): Effect.Effect<MessageResponse, BadRequest | NotFound> =>
  Effect.gen(function*() {
    const { uploads } = parts
    const reference = request.message_reference ?? undefined
    const forward = reference?.type === MessageReferenceType.FORWARD
    const replied = forward ? undefined : parts.replied
    yield* checkShape(request, forward, uploads)
    const forwarded = forward ? parts.forwarded?.message : undefined
    if (forward && (forwarded === undefined || forwarded.id !== reference.message_id || forwarded.channel_id !== reference.channel_id)) {
      return yield* unknown("MESSAGE")
    }
    if (reference !== undefined && !forward) {
      if ((reference.channel_id ?? state.id) !== state.id) {
        return yield* invalidField("message_reference.channel_id", "INVALID_CHANNEL", "A reply answers a message of its own channel")
      }
      if (replied === undefined) return yield* invalidField("message_reference.message_id", "INVALID_MESSAGE_DATA", "Unknown message")
      if (replied.type !== MessageType.DEFAULT && replied.type !== MessageType.REPLY) {
        return yield* invalidField("message_reference", "CANNOT_REPLY_TO_SYSTEM_MESSAGE", "Cannot reply to a system message")
      }
    }
    const stickers = yield* dmStickers(request.sticker_ids ?? [], parts.stickers)
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
      attachments: uploads,
      ...(stickers.length === 0 ? {} : { stickers }),
      ...(replied === undefined ? {} : {
        message_reference: { channel_id: state.id, message_id: replied.id, guild_id: null, type: MessageReferenceType.REPLY },
        referenced_message: withoutReferenced(replied)
      }),
      ...(forwarded === undefined ? {} : {
        message_reference: {
          channel_id: forwarded.channel_id,
          message_id: forwarded.id,
          guild_id: parts.forwarded?.guildId ?? null,
          type: MessageReferenceType.FORWARD
        },
        message_snapshots: [snapshotOf(forwarded)]
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
    yield* checkSnapshotEdit(before, patch)
    const content = patch.content === undefined ? before.content : patch.content ?? ""
    const embeds = patch.embeds === undefined ? before.embeds : patch.embeds.map(embedOf)
    const kept = yield* keptAttachments(before, patch.attachments)
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
