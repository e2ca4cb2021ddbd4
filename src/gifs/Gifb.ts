import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createHash } from "node:crypto"
import { AppConfig, type GifProviderSettings } from "../platform/Config.ts"
import { type GifProvider, GifProviderError, providerLocale, unconfiguredProvider } from "./Provider.ts"
import type { GifResponse } from "./Schemas.ts"
import { endpoint, exchange } from "./Upstream.ts"

/*
 * The second GIF provider's API (a Klipy-style API): the key is a path segment
 * (`<base>/<key>/gifs/search`), answers are wrapped in `{result, data}`, and a
 * clip is named by its slug, with its files by size and format
 * (`file.hd.mp4 = {url, width, height}`).
 */

/** Clips rated at most PG-13, as the first provider is asked. */
const RATING = "pg-13"
/** The provider serves pages of 8 to 50. */
const MIN_PAGE = 8
/** Where a clip's own page is: the provider's answers name only the slug. */
const PAGE_URL = "https://klipy.com/gifs/"

const File = Schema.Struct({ url: Schema.String, width: Schema.Int, height: Schema.Int })
/** Ads the feed may interleave have neither slug nor `file`; they are left out. */
const Clip = Schema.Struct({
  slug: Schema.optional(Schema.String),
  title: Schema.optional(Schema.NullOr(Schema.String)),
  file: Schema.optional(Schema.Struct({ hd: Schema.optional(Schema.Struct({ mp4: Schema.optional(File) })) }))
})
const envelope = <A, I>(data: Schema.Codec<A, I>) => Schema.Struct({ result: Schema.Boolean, data })
const Page = envelope(Schema.Struct({ data: Schema.Array(Clip) }))
const Categories = envelope(Schema.Struct({
  categories: Schema.Array(Schema.Struct({ query: Schema.String }))
}))
const Terms = envelope(Schema.Array(Schema.String))
const Acknowledgement = Schema.Struct({ result: Schema.Boolean })

/**
 * A clip as clients want it, `id` being its slug. No media proxy for outside
 * URLs exists here, so `proxy_src` is the provider's own URL.
 */
const toGif = (clip: typeof Clip.Type): ReadonlyArray<GifResponse> => {
  const media = clip.file?.hd?.mp4
  if (media === undefined || clip.slug === undefined) return []
  return [{
    id: clip.slug,
    title: clip.title ?? "",
    url: PAGE_URL + encodeURIComponent(clip.slug),
    src: media.url,
    proxy_src: media.url,
    width: media.width,
    height: media.height
  }]
}

/** `{result: false}` is the provider's refusal, whatever the HTTP status said. */
const accepted = <A extends { readonly result: boolean }>(path: string) => (answer: A) =>
  answer.result
    ? Effect.succeed(answer)
    : Effect.fail(new GifProviderError({ reason: "unreachable", message: `gifb ${path}: the provider answered result: false` }))

/**
 * The provider counts shares per user; it gets a pseudonym (a digest of the
 * user id and our key) that it cannot map back to the account.
 */
const customerId = (userId: string, key: string) => createHash("sha256").update(`${key}:${userId}`).digest("hex").slice(0, 32)

const make = (settings: GifProviderSettings, key: string, timeoutMillis: number): GifProvider => {
  const call = <A extends { readonly result: boolean }, I>(
    path: string,
    params: Record<string, string | number>,
    schema: Schema.Codec<A, I>,
    body?: unknown
  ) =>
    exchange(
      "gifb",
      {
        what: path,
        url: endpoint(settings.apiUrl, `${encodeURIComponent(key)}/${path}`, params),
        ...(body === undefined ? {} : { method: "POST" as const, body })
      },
      schema,
      timeoutMillis
    ).pipe(Effect.flatMap(accepted(path)))
  const clips = (path: string, params: Record<string, string | number>, limit: number) =>
    Effect.map(
      call(path, { page: 1, per_page: Math.max(limit, MIN_PAGE), rating: RATING, ...params }, Page),
      (answer) => answer.data.data.flatMap(toGif).slice(0, limit)
    )
  return {
    trending: (locale, limit) => clips("gifs/trending", { locale: providerLocale(locale) }, limit),
    search: (q, locale, limit) => clips("gifs/search", { q, locale: providerLocale(locale) }, limit),
    categories: (locale) =>
      Effect.map(
        call("gifs/categories", { locale: providerLocale(locale) }, Categories),
        (answer) => answer.data.categories.map((category) => category.query)
      ),
    suggest: (q, locale) =>
      Effect.map(call("autocomplete", { q, locale: providerLocale(locale) }, Terms), (answer) => answer.data),
    registerShare: ({ id, q, userId }) =>
      Effect.asVoid(call(`gifs/${encodeURIComponent(id)}/share`, {}, Acknowledgement, {
        customer_id: customerId(userId, key),
        q
      }))
  }
}

/** The second GIF provider (`GIFB_API_URL`, `GIFB_API_KEY`). */
export class Gifb extends Context.Service<Gifb, GifProvider>()("guildhall/Gifb") {
  static readonly layer = Layer.effect(
    Gifb,
    Effect.map(AppConfig, ({ gifb, gifProviderTimeoutMillis }) =>
      Option.match(gifb.apiKey, {
        onNone: () => unconfiguredProvider("gifb", "GIFB_API_KEY"),
        onSome: (key) => make(gifb, Redacted.value(key), gifProviderTimeoutMillis)
      }))
  )
}
