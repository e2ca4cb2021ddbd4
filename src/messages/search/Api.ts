import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ChannelResponse } from "../../model/Guilds.ts"
import { Credentials, UserAuthentication, userOnly } from "../../http/Authentication.ts"
import { BoundedText } from "../../model/Common.ts"
import { Snowflake } from "../../model/Ids.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { MessageResponse } from "../../model/Messages.ts"

export const HAS_KINDS = ["image", "sound", "video", "file", "sticker", "embed", "link", "poll", "snapshot"] as const
export type HasKind = (typeof HAS_KINDS)[number]

const Ids = (max: number) => Schema.Array(Snowflake).check(Schema.isMaxLength(max))
const Has = Schema.Array(Schema.Literals(HAS_KINDS)).check(Schema.isMaxLength(20))
/** Embed types a search names: an embed's own `type` (a rich embed is none of them). */
export const EMBED_TYPES = ["image", "video", "sound", "article"] as const
export type EmbedType = (typeof EMBED_TYPES)[number]
const EmbedTypes = Schema.Array(Schema.Literals(EMBED_TYPES)).check(Schema.isMaxLength(20))
const Hostnames = Schema.Array(BoundedText(1, 255)).check(Schema.isMaxLength(100))
const Text = BoundedText(1, 1024)
/** Who sent a message: a webhook, else its author's user is a bot or a person. */
export const AUTHOR_TYPES = ["user", "bot", "webhook"] as const
export type AuthorType = (typeof AUTHOR_TYPES)[number]
const AuthorTypes = Schema.Array(Schema.Literals(AUTHOR_TYPES)).check(Schema.isMaxLength(20))
/** Embed provider names (an embed's provider name is at most 256 characters, as its author's). */
const Providers = Schema.Array(BoundedText(1, 256)).check(Schema.isMaxLength(50))
const Filenames = Schema.Array(Text).check(Schema.isMaxLength(100))
const Extensions = Schema.Array(BoundedText(1, 255)).check(Schema.isMaxLength(50))

/** Past this many hits a search stops paging: deep offsets cost a scan of everything before them. */
export const MAX_SEARCH_OFFSET = 9975
export const DEFAULT_HITS_PER_PAGE = 25

/**
 * The part of GlobalSearchMessagesRequest (reference/schemas.md) this server
 * answers: words, phrases, authors, channels, the guild (`context_guild_id`),
 * mentions, pinned, kinds of content (`has`), author types, embed types and
 * providers, link hostnames, attachment filenames and extensions, an id
 * range (`min_id`/`max_id`, i.e. after/before), ordering and pages.
 */
export const SearchMessagesRequest = Schema.Struct({
  hits_per_page: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 25 }))),
  page: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 400 }))),
  max_id: Schema.optional(Snowflake),
  min_id: Schema.optional(Snowflake),
  content: Schema.optional(Text),
  contents: Schema.optional(Schema.Array(Text).check(Schema.isMaxLength(100))),
  exact_phrases: Schema.optional(Schema.Array(Text).check(Schema.isMaxLength(10))),
  channel_id: Schema.optional(Ids(500)),
  channel_ids: Schema.optional(Ids(500)),
  exclude_channel_id: Schema.optional(Ids(500)),
  author_id: Schema.optional(Ids(100)),
  exclude_author_id: Schema.optional(Ids(100)),
  author_type: Schema.optional(AuthorTypes),
  exclude_author_type: Schema.optional(AuthorTypes),
  mentions: Schema.optional(Ids(100)),
  mention_everyone: Schema.optional(Schema.Boolean),
  pinned: Schema.optional(Schema.Boolean),
  has: Schema.optional(Has),
  exclude_has: Schema.optional(Has),
  embed_type: Schema.optional(EmbedTypes),
  exclude_embed_type: Schema.optional(EmbedTypes),
  embed_provider: Schema.optional(Providers),
  exclude_embed_provider: Schema.optional(Providers),
  link_hostname: Schema.optional(Hostnames),
  exclude_link_hostname: Schema.optional(Hostnames),
  attachment_filename: Schema.optional(Filenames),
  exclude_attachment_filename: Schema.optional(Filenames),
  attachment_extension: Schema.optional(Extensions),
  exclude_attachment_extension: Schema.optional(Extensions),
  sort_by: Schema.optional(Schema.Literals(["timestamp", "relevance"])),
  sort_order: Schema.optional(Schema.Literals(["asc", "desc"])),
  context_guild_id: Schema.optional(Snowflake)
})
export type SearchMessagesRequest = typeof SearchMessagesRequest.Type

/** MessageSearchResultsResponse: the page's messages and the channels they are in. */
export const MessageSearchResponse = Schema.Struct({
  messages: Schema.Array(MessageResponse),
  channels: Schema.Array(ChannelResponse),
  total: Schema.Int,
  hits_per_page: Schema.Int,
  page: Schema.Int
})

export class SearchApi extends HttpApiGroup.make("messageSearch").add(
  HttpApiEndpoint.post("search", "/search/messages", {
    payload: SearchMessagesRequest,
    success: MessageSearchResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly)
).middleware(UserAuthentication) {}
