import { Schema } from "effect"
import { BoundedText } from "../model/Common.ts"
import { LOCALES } from "../model/Settings.ts"

/**
 * The wire shapes of both GIF providers (part C, GIF providers). The second
 * provider's shapes are "not shown" in the spec; the client SDK documents them
 * as the first's, with the clip's slug as `id`, so one set serves both.
 */

/** GifaGifResponse: one result, its media as the provider serves it (`src`) and as clients should load it (`proxy_src`). */
export const GifResponse = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  url: Schema.String,
  src: Schema.String,
  proxy_src: Schema.String,
  width: Schema.Int,
  height: Schema.Int
})
export type GifResponse = typeof GifResponse.Type

/** GifaCategoryTagResponse: a category's search term and a preview clip of it. */
export const CategoryTagResponse = Schema.Struct({ name: Schema.String, src: Schema.String, proxy_src: Schema.String })
export type CategoryTagResponse = typeof CategoryTagResponse.Type

/** GifaFeaturedResponse: the picker's opening page, one trending result (its tile's preview) and the categories. */
export const FeaturedResponse = Schema.Struct({
  categories: Schema.Array(CategoryTagResponse),
  gifs: Schema.Array(GifResponse)
})
export type FeaturedResponse = typeof FeaturedResponse.Type

/** Absent means `en-US`, as the production service defaults it. */
export const GifLocale = Schema.Literals(LOCALES)
export type GifLocale = typeof GifLocale.Type
export const DEFAULT_LOCALE: GifLocale = "en-US"

/** Search terms: what the production service accepts (1 to 256 characters). */
const Query = BoundedText(1, 256)

/** Results one page asks of the provider; 50 is both providers' maximum. */
export const MAX_LIMIT = 50
const Limit = Schema.NumberFromString.check(
  Schema.isInt({ message: "NUMBER_TYPE_INVALID: Must be a whole number" }),
  Schema.isBetween({ minimum: 1, maximum: MAX_LIMIT }, { message: `NUMBER_TYPE_INVALID: Must be between 1 and ${MAX_LIMIT}` })
)

export const LocaleQuery = Schema.Struct({ locale: Schema.optional(GifLocale) })
export const TrendingQuery = Schema.Struct({ locale: Schema.optional(GifLocale), limit: Schema.optional(Limit) })
export const SearchQuery = Schema.Struct({ q: Query, locale: Schema.optional(GifLocale), limit: Schema.optional(Limit) })
export const SuggestQuery = Schema.Struct({ q: Query, locale: Schema.optional(GifLocale) })

/**
 * The first provider's result ids: SnowflakeType in the spec, a decimal string. Its
 * ids run to 20 digits, past our own snowflakes' 64-bit range, so only the form is held.
 */
const GifaResultId = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,20}$/, { message: "INVALID_SNOWFLAKE_FORMAT: Value is not a provider result id" })
)
/** The second provider's clip slugs: letters, digits, `-` and `_` (it goes into the provider's URL path). */
const GifbSlug = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9_-]{1,128}$/, { message: "INVALID_FORMAT: Value is not a clip slug" })
)

const shareFields = { locale: Schema.optional(GifLocale), q: Schema.optional(Schema.NullOr(BoundedText(0, 256))) }
/** GifaRegisterShareRequest. */
export const GifaRegisterShareRequest = Schema.Struct({ id: GifaResultId, ...shareFields })
/** The second provider's register-share body (not shown in the spec; the SDK's: the clip's slug as `id`). */
export const GifbRegisterShareRequest = Schema.Struct({ id: GifbSlug, ...shareFields })
