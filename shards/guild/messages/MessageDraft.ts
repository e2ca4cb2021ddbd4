import { Effect } from "effect"
import { BadRequest, type Forbidden, invalidField, missingPermissions } from "../../../src/model/Errors.ts"
import type { AllowedMentionsRequest, MessageCreateRequest, RichEmbedRequest } from "../../../src/model/MessageRequests.ts"
import {
  type MessageAttachmentResponse,
  type MessageEmbedResponse,
  MessageFlag,
  type MessageSnapshotResponse,
  type MessageStickerResponse,
  type ReferencedMessage
} from "../../../src/model/Messages.ts"
import type { UserPartialResponse } from "../../../src/model/Users.ts"
import { DisabledOperation } from "./MessageAccess.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import type { GuildState } from "../State.ts"

/** Flags a sender may set; the others are the server's to set. */
const SENDABLE_FLAGS = MessageFlag.SUPPRESS_EMBEDS | MessageFlag.SUPPRESS_NOTIFICATIONS | MessageFlag.VOICE_MESSAGE

const USER_MENTION = /<@!?(\d{1,20})>/g
const ROLE_MENTION = /<@&(\d{1,20})>/g
const EVERYONE_MENTION = /@(?:everyone|here)(?![\w])/

export interface Mentions {
  readonly mentions: ReadonlyArray<UserPartialResponse>
  readonly mention_roles: ReadonlyArray<string>
  readonly mention_everyone: boolean
}

const idsIn = (content: string, pattern: RegExp) => [...new Set([...content.matchAll(pattern)].flatMap((m) => (m[1] ? [m[1]] : [])))]

/**
 * Who `content` pings, as `allowed` lets it (AllowedMentionsRequest; absent:
 * everything may ping, and a reply pings its author): members mentioned,
 * roles that are mentionable (any role with MENTION_EVERYONE), and @everyone
 * or @here with MENTION_EVERYONE unless the guild switched it off.
 */
export const mentionsIn = (
  state: GuildState,
  content: string,
  allowed: AllowedMentionsRequest | null | undefined,
  permissions: bigint,
  repliedAuthor: UserPartialResponse | undefined
): Mentions => {
  const parses = (kind: "users" | "roles" | "everyone") => allowed == null || (allowed.parse?.includes(kind) ?? false)
  const mayPingAnyRole = has(permissions, Permission.MENTION_EVERYONE)
  const users = idsIn(content, USER_MENTION)
    .filter((id) => parses("users") || (allowed?.users?.includes(id) ?? false))
    .flatMap((id) => {
      const member = state.members.get(id)
      return member === undefined ? [] : [member.user]
    })
  const pingsReplied = repliedAuthor !== undefined && (allowed == null || allowed.replied_user === true)
  if (pingsReplied && !users.some((u) => u.id === repliedAuthor.id)) users.push(repliedAuthor)
  const roles = idsIn(content, ROLE_MENTION).filter((id) => {
    const role = state.roles.get(id)
    return role !== undefined && id !== state.guild.id && (role.mentionable || mayPingAnyRole) &&
      (parses("roles") || (allowed?.roles?.includes(id) ?? false))
  })
  const everyone = EVERYONE_MENTION.test(content) && parses("everyone") && mayPingAnyRole &&
    (state.guild.disabled_operations & DisabledOperation.EVERYONE_MENTIONS) === 0
  return { mentions: users, mention_roles: roles, mention_everyone: everyone }
}

/** Whom a reply to `m` may ping: its author, unless a webhook wrote it (a webhook is no user to ping). */
export const pingableAuthor = (m: ReferencedMessage | null | undefined): UserPartialResponse | undefined =>
  m == null || m.webhook_id !== undefined ? undefined : m.author

/** A rich embed as messages show it. */
export const embedOf = (e: RichEmbedRequest): MessageEmbedResponse => ({
  type: "rich",
  ...(e.url == null ? {} : { url: e.url }),
  ...(e.title == null ? {} : { title: e.title }),
  ...(e.color == null ? {} : { color: e.color }),
  ...(e.timestamp == null ? {} : { timestamp: new Date(e.timestamp).toISOString() }),
  ...(e.description == null ? {} : { description: e.description }),
  ...(e.author == null ? {} : { author: { name: e.author.name, url: e.author.url ?? null, icon_url: e.author.icon_url ?? null } }),
  ...(e.image == null ? {} : { image: { url: e.image.url, description: e.image.description ?? null, flags: 0 } }),
  ...(e.thumbnail == null ? {} : { thumbnail: { url: e.thumbnail.url, description: e.thumbnail.description ?? null, flags: 0 } }),
  ...(e.footer == null ? {} : { footer: { text: e.footer.text, icon_url: e.footer.icon_url ?? null } }),
  ...(e.fields == null ? {} : { fields: e.fields.map((f) => ({ name: f.name, value: f.value, inline: f.inline ?? false })) })
})

/** Embeds need EMBED_LINKS. */
export const embedsFor = (
  embeds: ReadonlyArray<RichEmbedRequest> | undefined,
  permissions: bigint
): Effect.Effect<ReadonlyArray<MessageEmbedResponse>, Forbidden> =>
  embeds === undefined || embeds.length === 0
    ? Effect.succeed([])
    : has(permissions, Permission.EMBED_LINKS)
    ? Effect.succeed(embeds.map(embedOf))
    : Effect.fail(missingPermissions())

/**
 * The stickers `ids` name, in order, as a message shows them. `find` answers
 * the sticker of an id, undefined when it knows none (CUSTOM_STICKER_NOT_FOUND),
 * or its own refusal; the path of an error is the id's place in `sticker_ids`.
 */
export const stickersNamed = (
  ids: ReadonlyArray<string>,
  find: (id: string, path: string) => Effect.Effect<MessageStickerResponse | undefined, BadRequest>
): Effect.Effect<ReadonlyArray<MessageStickerResponse>, BadRequest> =>
  Effect.forEach(ids, (id, i) =>
    Effect.flatMap(find(id, `sticker_ids.${i}`), (sticker) =>
      sticker === undefined
        ? Effect.fail(invalidField(`sticker_ids.${i}`, "CUSTOM_STICKER_NOT_FOUND", "Unknown sticker"))
        : Effect.succeed({ id: sticker.id, name: sticker.name, animated: sticker.animated })))

/** The guild's stickers named by `ids` (stickers of other guilds are not known here). */
export const stickersFor = (
  state: GuildState,
  ids: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<MessageStickerResponse>, BadRequest> =>
  stickersNamed(ids, (id) => Effect.succeed(state.stickers.get(id)))

/** What a forward carries of the message it forwards: a copy, as it is now. */
export const snapshotOf = (m: ReferencedMessage): MessageSnapshotResponse => ({
  content: m.content,
  timestamp: m.timestamp,
  edited_timestamp: m.edited_timestamp,
  mentions: m.mentions.map((u) => u.id),
  mention_roles: m.mention_roles,
  embeds: m.embeds,
  attachments: m.attachments,
  stickers: m.stickers ?? [],
  type: m.type,
  flags: m.flags
})

/** The flags a message takes from the request. */
export const sendableFlags = (flags: number | undefined): number => (flags ?? 0) & SENDABLE_FLAGS

/**
 * Rules of a create that need no state: files come only with multipart
 * requests (`uploads`, their metadata already matched to them), saved media is
 * not kept yet, a voice message is one audio file and nothing else, and a
 * message says something.
 */
export const checkShape = (
  request: MessageCreateRequest,
  forward: boolean,
  uploads: ReadonlyArray<MessageAttachmentResponse> = []
): Effect.Effect<void, BadRequest> => {
  const content = request.content ?? ""
  const embeds = request.embeds?.length ?? 0
  const stickers = request.sticker_ids?.length ?? 0
  const attachments = uploads.length
  if (attachments === 0 && (request.attachments?.length ?? 0) > 0) {
    return Effect.fail(invalidField("attachments.0", "NO_FILE_FOR_ATTACHMENT_METADATA", "No file was uploaded for this attachment"))
  }
  if (request.favorite_meme_id != null) {
    return Effect.fail(invalidField("favorite_meme_id", "FAVORITE_MEME_NOT_FOUND", "Unknown saved media"))
  }
  if ((sendableFlags(request.flags) & MessageFlag.VOICE_MESSAGE) !== 0) {
    if (content !== "") return Effect.fail(invalidField("content", "VOICE_MESSAGES_CANNOT_HAVE_CONTENT", "A voice message has no text"))
    if (embeds > 0) return Effect.fail(invalidField("embeds", "VOICE_MESSAGES_CANNOT_HAVE_EMBEDS", "A voice message has no embeds"))
    if (stickers > 0) {
      return Effect.fail(invalidField("sticker_ids", "VOICE_MESSAGES_CANNOT_HAVE_STICKERS", "A voice message has no stickers"))
    }
    return attachments === 1
      ? Effect.void
      : Effect.fail(invalidField("attachments", "VOICE_MESSAGES_REQUIRE_SINGLE_ATTACHMENT", "A voice message is one audio file"))
  }
  if (forward) {
    return content !== "" || embeds > 0 || stickers > 0 || attachments > 0
      ? Effect.fail(invalidField("message_reference", "FORWARD_MESSAGES_CANNOT_CONTAIN_CONTENT", "A forward adds nothing of its own"))
      : Effect.void
  }
  return content.trim() === "" && embeds === 0 && stickers === 0 && attachments === 0
    ? Effect.fail(new BadRequest({ code: "CANNOT_SEND_EMPTY_MESSAGE", message: "Cannot send an empty message" }))
    : Effect.void
}
