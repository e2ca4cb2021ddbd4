import { Schema } from "effect"
import { BadRequest, NotFound } from "./Errors.ts"
import { BoundedText } from "./Common.ts"
import { Snowflake } from "./Ids.ts"

/**
 * Saved media ("memes", part C): shapes and limits. The limits are the
 * production service's: names 1 to 100, alt text up to 500, at most 10 tags
 * of 1 to 30 each.
 */
export const MAX_NAME = 100
export const MAX_ALT_TEXT = 500
export const MAX_TAGS = 10
export const MAX_TAG = 30
export const MAX_GIF_SLUG = 100

/** Saved media a user keeps by default, as production's non-premium limit (this server sells no premium). */
export const DEFAULT_MAX_FAVORITE_MEMES = 50

const Name = BoundedText(1, MAX_NAME)
const AltText = Schema.NullOr(BoundedText(0, MAX_ALT_TEXT))
const Tags = Schema.NullOr(
  Schema.Array(BoundedText(1, MAX_TAG)).check(
    Schema.makeFilter((tags) => tags.length <= MAX_TAGS || `STRING_LENGTH_INVALID: At most ${MAX_TAGS} tags`)
  )
)

/** CreateFavoriteMemeBodySchema: media of a message. */
export const CreateFavoriteMemeRequest = Schema.Struct({
  name: Name,
  alt_text: Schema.optional(AltText),
  tags: Schema.optional(Tags),
  attachment_id: Schema.optional(Schema.NullOr(Snowflake)),
  embed_index: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }))))
})
export type CreateFavoriteMemeRequest = typeof CreateFavoriteMemeRequest.Type

/** CreateFavoriteMemeFromUrlBodySchema: media fetched from the web (part C's field names). */
export const CreateFavoriteMemeFromUrlRequest = Schema.Struct({
  url: BoundedText(1, 2048),
  name: Schema.optional(Schema.NullOr(Name)),
  alt_text: Schema.optional(AltText),
  tags: Schema.optional(Tags),
  gifb_slug: Schema.optional(Schema.NullOr(BoundedText(1, MAX_GIF_SLUG))),
  gifa_slug_id: Schema.optional(Schema.NullOr(Snowflake))
})
export type CreateFavoriteMemeFromUrlRequest = typeof CreateFavoriteMemeFromUrlRequest.Type

/** UpdateFavoriteMemeBodySchema: an absent field stays; alt_text null clears it; tags null keeps them. */
export const UpdateFavoriteMemeRequest = Schema.Struct({
  name: Schema.optionalKey(Name),
  alt_text: Schema.optional(AltText),
  tags: Schema.optional(Tags)
})
export type UpdateFavoriteMemeRequest = typeof UpdateFavoriteMemeRequest.Type

export const FavoriteMemeResponse = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  name: Schema.String,
  alt_text: Schema.NullOr(Schema.String),
  tags: Schema.Array(Schema.String),
  attachment_id: Schema.String,
  filename: Schema.String,
  content_type: Schema.String,
  content_hash: Schema.NullOr(Schema.String),
  size: Schema.Int,
  width: Schema.NullOr(Schema.Int),
  height: Schema.NullOr(Schema.Int),
  duration: Schema.NullOr(Schema.Number),
  url: Schema.String,
  is_gifv: Schema.Boolean,
  gifb_slug: Schema.NullOr(Schema.String),
  gifa_slug_id: Schema.NullOr(Schema.String)
})
export type FavoriteMemeResponse = typeof FavoriteMemeResponse.Type

/** Tags as kept: trimmed, blank ones dropped, each once. */
export const cleanTags = (tags: ReadonlyArray<string> | null | undefined): ReadonlyArray<string> =>
  [...new Set((tags ?? []).map((t) => t.trim()).filter((t) => t.length > 0))]

/** Alt text as kept: trimmed, blank is none. */
export const cleanAltText = (text: string | null | undefined): string | null => {
  const trimmed = text?.trim() ?? ""
  return trimmed === "" ? null : trimmed
}

export const unknownFavoriteMeme = () => new NotFound({ code: "UNKNOWN_FAVORITE_MEME", message: "Unknown favorite meme" })

export const maxFavoriteMemes = (limit: number) =>
  new BadRequest({ code: "MAX_FAVORITE_MEMES", message: `Maximum number of favorite memes reached (${limit})` })
