import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { type GifCatalog, makeCatalog } from "./Catalog.ts"
import { Gifa } from "./Gifa.ts"
import { Gifb } from "./Gifb.ts"
import {
  DEFAULT_LOCALE,
  GifaRegisterShareRequest,
  GifbRegisterShareRequest,
  LocaleQuery,
  MAX_LIMIT,
  SearchQuery,
  SuggestQuery,
  TrendingQuery
} from "./Schemas.ts"

/** The same five handlers for either provider's group. */
const handlersOf = (catalog: GifCatalog) => ({
  featured: ({ query }: { readonly query: typeof LocaleQuery.Type }) => catalog.featured(query.locale ?? DEFAULT_LOCALE),
  search: ({ query }: { readonly query: typeof SearchQuery.Type }) =>
    catalog.search(query.q, query.locale ?? DEFAULT_LOCALE, query.limit ?? MAX_LIMIT),
  trending: ({ query }: { readonly query: typeof TrendingQuery.Type }) =>
    catalog.trending(query.locale ?? DEFAULT_LOCALE, query.limit ?? MAX_LIMIT),
  suggest: ({ query }: { readonly query: typeof SuggestQuery.Type }) => catalog.suggest(query.q, query.locale ?? DEFAULT_LOCALE),
  registerShare: ({ payload }: { readonly payload: typeof GifaRegisterShareRequest.Type | typeof GifbRegisterShareRequest.Type }) =>
    Effect.flatMap(CurrentUser, (me) =>
      catalog.registerShare({ id: payload.id, q: payload.q ?? "", locale: payload.locale ?? DEFAULT_LOCALE, userId: me.id }))
})

const GifaHandlers = HttpApiBuilder.group(Api, "gifa", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const h = handlersOf(yield* makeCatalog("gifa", yield* Gifa))
    return handlers.handle("featured", h.featured).handle("search", h.search).handle("trending", h.trending)
      .handle("suggest", h.suggest).handle("registerShare", h.registerShare)
  })))

const GifbHandlers = HttpApiBuilder.group(Api, "gifb", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const h = handlersOf(yield* makeCatalog("gifb", yield* Gifb))
    return handlers.handle("featured", h.featured).handle("search", h.search).handle("trending", h.trending)
      .handle("suggest", h.suggest).handle("registerShare", h.registerShare)
  })))

/** Both providers' routes, each provider behind its cache, with rate limiting. */
export const GifsHttp = Layer.mergeAll(perRequestMiddlewaresOnly(GifaHandlers), perRequestMiddlewaresOnly(GifbHandlers)).pipe(
  Layer.provide([RateLimitLive, Gifa.layer, Gifb.layer])
)
