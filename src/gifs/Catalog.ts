import { Cache, Effect, Exit, Option } from "effect"
import { Unavailable } from "../model/Errors.ts"
import type { GifProvider, GifProviderError } from "./Provider.ts"
import type { CategoryTagResponse, FeaturedResponse, GifLocale, GifResponse } from "./Schemas.ts"

/** How long an answer is reused: long enough that a burst of identical searches is one upstream call. */
const FRESH_FOR = "60 seconds"
/** Answers kept per provider and kind of call; the least recently used goes first. */
const CAPACITY = 1_000
/** Category previews fetched at once when the featured page is built. */
const PREVIEW_CONCURRENCY = 8

/** What clients may ask of a provider, as the routes answer it. */
export interface GifCatalog {
  readonly featured: (locale: GifLocale) => Effect.Effect<FeaturedResponse, Unavailable>
  readonly trending: (locale: GifLocale, limit: number) => Effect.Effect<ReadonlyArray<GifResponse>, Unavailable>
  readonly search: (q: string, locale: GifLocale, limit: number) => Effect.Effect<ReadonlyArray<GifResponse>, Unavailable>
  readonly suggest: (q: string, locale: GifLocale) => Effect.Effect<ReadonlyArray<string>, Unavailable>
  readonly registerShare: (
    share: { readonly id: string; readonly q: string; readonly locale: GifLocale; readonly userId: string }
  ) => Effect.Effect<void, Unavailable>
}

/**
 * A provider's failure as the wire's 503: no key is the operator's choice and
 * says so; anything else is logged with its detail and answered without it
 * (the detail names the provider's endpoints).
 */
const toUnavailable = (name: string) => (error: GifProviderError) =>
  error.reason === "unconfigured"
    ? Effect.fail(new Unavailable({ code: "FEATURE_TEMPORARILY_DISABLED", message: error.message }))
    : Effect.logWarning("GIF provider failed", { provider: name, reason: error.reason, detail: error.message }).pipe(
      Effect.andThen(Effect.fail(new Unavailable({
        code: "SERVICE_UNAVAILABLE",
        message: error.reason === "unreachable"
          ? `The GIF provider ${name} could not be reached; try again later`
          : `The GIF provider ${name} gave an answer this server cannot read; try again later`
      })))
    )

/** Successes are kept for a while; failures not at all, so the next request asks again. */
const cached = <Key, A>(lookup: (key: Key) => Effect.Effect<A, GifProviderError>) =>
  Cache.makeWith(lookup, { capacity: CAPACITY, timeToLive: (exit) => (Exit.isSuccess(exit) ? FRESH_FOR : 0) })

/**
 * `provider` behind a cache per kind of call, keyed by every input of the call
 * (structurally equal keys are one entry). Sharing a result is a signal to the
 * provider, never cached.
 */
export const makeCatalog = (name: string, provider: GifProvider) =>
  Effect.gen(function*() {
    const trending = yield* cached((key: { readonly locale: GifLocale; readonly limit: number }) =>
      provider.trending(key.locale, key.limit))
    const search = yield* cached((key: { readonly q: string; readonly locale: GifLocale; readonly limit: number }) =>
      provider.search(key.q, key.locale, key.limit))
    const suggest = yield* cached((key: { readonly q: string; readonly locale: GifLocale }) => provider.suggest(key.q, key.locale))

    /** A category with its first result as preview; one whose search fails or finds nothing is left out. */
    const preview = (term: string, locale: GifLocale) =>
      Cache.get(search, { q: term, locale, limit: 1 }).pipe(
        Effect.map((gifs) => Option.map(Option.fromNullishOr(gifs[0]), (gif): CategoryTagResponse => ({
          name: term,
          src: gif.src,
          proxy_src: gif.proxy_src
        }))),
        Effect.orElseSucceed(() => Option.none<CategoryTagResponse>())
      )

    /** The picker's first page: one trending result (its tile) and every featured category with a preview. */
    const featured = yield* cached((locale: GifLocale) =>
      Effect.all({
        gifs: Cache.get(trending, { locale, limit: 1 }),
        categories: Effect.flatMap(provider.categories(locale), (categories) =>
          Effect.forEach(categories, (term) => preview(term, locale), { concurrency: PREVIEW_CONCURRENCY }).pipe(
            Effect.map((previews) => previews.flatMap((p) => Option.toArray(p)))
          ))
      }, { concurrency: 2 }))

    const answer = toUnavailable(name)
    const catalog: GifCatalog = {
      featured: (locale) => Effect.catch(Cache.get(featured, locale), answer),
      trending: (locale, limit) => Effect.catch(Cache.get(trending, { locale, limit }), answer),
      search: (q, locale, limit) => Effect.catch(Cache.get(search, { q, locale, limit }), answer),
      suggest: (q, locale) => Effect.catch(Cache.get(suggest, { q, locale }), answer),
      registerShare: (share) => Effect.catch(provider.registerShare(share), answer)
    }
    return catalog
  })
