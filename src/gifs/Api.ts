import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import {
  FeaturedResponse,
  GifaRegisterShareRequest,
  GifbRegisterShareRequest,
  GifResponse,
  LocaleQuery,
  SearchQuery,
  SuggestQuery,
  TrendingQuery
} from "./Schemas.ts"

/** Per user, the production service's limits: 40 reads and 60 shares per 10 s and provider. */
const bucket = (provider: string, name: string, limit: number) => ({ name: `${provider}.${name}`, limit, windowMillis: 10_000 })

/**
 * The five routes of one GIF provider (part C, GIF providers). People's own
 * sessions only, as in production: a GIF picker is a person's.
 */
const providerGroup = <const Name extends "gifa" | "gifb">(
  name: Name,
  shareRequest: typeof GifaRegisterShareRequest | typeof GifbRegisterShareRequest
) =>
  HttpApiGroup.make(name).add(
    HttpApiEndpoint.get("featured", `/${name}/featured`, { query: LocaleQuery, success: FeaturedResponse, error: ApiErrors })
      .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket(name, "featured", 40)).middleware(RateLimit),
    HttpApiEndpoint.get("search", `/${name}/search`, { query: SearchQuery, success: Schema.Array(GifResponse), error: ApiErrors })
      .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket(name, "search", 40)).middleware(RateLimit),
    HttpApiEndpoint.get("trending", `/${name}/trending-gifs`, {
      query: TrendingQuery,
      success: Schema.Array(GifResponse),
      error: ApiErrors
    }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket(name, "trending", 40)).middleware(RateLimit),
    HttpApiEndpoint.get("suggest", `/${name}/suggest`, { query: SuggestQuery, success: Schema.Array(Schema.String), error: ApiErrors })
      .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket(name, "suggest", 40)).middleware(RateLimit),
    HttpApiEndpoint.post("registerShare", `/${name}/register-share`, { payload: shareRequest, error: ApiErrors })
      .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket(name, "register_share", 60)).middleware(RateLimit)
  ).middleware(UserAuthentication)

/** The first provider; result ids are decimal strings. */
export class GifaApi extends providerGroup("gifa", GifaRegisterShareRequest) {}
/** The second provider; results are named by their clip slug. */
export class GifbApi extends providerGroup("gifb", GifbRegisterShareRequest) {}
