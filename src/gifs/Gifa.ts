import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { AppConfig, type GifProviderSettings } from "../platform/Config.ts"
import { countryOf, type GifProvider, providerLocale, unconfiguredProvider } from "./Provider.ts"
import type { GifResponse } from "./Schemas.ts"
import { endpoint, exchange } from "./Upstream.ts"

/*
 * The first GIF provider's API (version 2 of a Tenor-style API): every call is a
 * GET with the key, a client key and the locale in the query; results carry
 * their media by format (`media_formats.webm = {url, dims: [w, h]}`).
 */

/** The format clients play: a looping video, as the production service serves it. */
const MEDIA_FORMAT = "webm"
/** Results rated at most PG-13, as the production service asks. */
const CONTENT_FILTER = "low"
const CLIENT_KEY = "guildhall"

const Media = Schema.Struct({ url: Schema.String, dims: Schema.Tuple([Schema.Int, Schema.Int]) })
const Result = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  content_description: Schema.optional(Schema.String),
  itemurl: Schema.String,
  media_formats: Schema.Struct({ webm: Schema.optional(Media) })
})
const Results = Schema.Struct({ results: Schema.Array(Result) })
const Categories = Schema.Struct({ tags: Schema.Array(Schema.Struct({ searchterm: Schema.String })) })
const Terms = Schema.Struct({ results: Schema.Array(Schema.String) })
const Anything = Schema.Unknown

/**
 * A result as clients want it. No media proxy for outside URLs exists here, so
 * `proxy_src` is the provider's own URL; a result without the video format is left out.
 */
const toGif = (result: typeof Result.Type): ReadonlyArray<GifResponse> => {
  const media = result.media_formats.webm
  if (media === undefined) return []
  const [width, height] = media.dims
  const title = result.title.length > 0 ? result.title : (result.content_description ?? "")
  return [{ id: result.id, title, url: result.itemurl, src: media.url, proxy_src: media.url, width, height }]
}

const make = (settings: GifProviderSettings, key: string, timeoutMillis: number): GifProvider => {
  const call = <A, I>(path: string, params: Record<string, string | number>, schema: Schema.Codec<A, I>) =>
    exchange(
      "gifa",
      { what: path, url: endpoint(settings.apiUrl, path, { key, client_key: CLIENT_KEY, ...params }) },
      schema,
      timeoutMillis
    )
  const gifs = (path: string, params: Record<string, string | number>) =>
    Effect.map(
      call(path, { media_filter: MEDIA_FORMAT, contentfilter: CONTENT_FILTER, ...params }, Results),
      ({ results }) => results.flatMap(toGif)
    )
  return {
    trending: (locale, limit) => gifs("featured", { locale: providerLocale(locale), country: countryOf(locale), limit }),
    search: (q, locale, limit) => gifs("search", { q, locale: providerLocale(locale), country: countryOf(locale), limit }),
    categories: (locale) =>
      Effect.map(
        call("categories", { type: "featured", locale: providerLocale(locale), country: countryOf(locale) }, Categories),
        ({ tags }) => tags.map((tag) => tag.searchterm)
      ),
    suggest: (q, locale) =>
      Effect.map(call("autocomplete", { q, locale: providerLocale(locale) }, Terms), ({ results }) => results),
    registerShare: ({ id, q, locale }) =>
      Effect.asVoid(
        call("registershare", { id, q, locale: providerLocale(locale), country: countryOf(locale) }, Anything)
      )
  }
}

/** The first GIF provider (`GIFA_API_URL`, `GIFA_API_KEY`). */
export class Gifa extends Context.Service<Gifa, GifProvider>()("guildhall/Gifa") {
  static readonly layer = Layer.effect(
    Gifa,
    Effect.map(AppConfig, ({ gifa, gifProviderTimeoutMillis }) =>
      Option.match(gifa.apiKey, {
        onNone: () => unconfiguredProvider("gifa", "GIFA_API_KEY"),
        onSome: (key) => make(gifa, Redacted.value(key), gifProviderTimeoutMillis)
      }))
  )
}
