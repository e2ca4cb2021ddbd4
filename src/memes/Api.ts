import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { MessagePath } from "../http/Paths.ts"
import { ApiErrors } from "../model/Errors.ts"
import {
  CreateFavoriteMemeFromUrlRequest,
  CreateFavoriteMemeRequest,
  FavoriteMemeResponse,
  UpdateFavoriteMemeRequest
} from "../model/FavoriteMemes.ts"
import { Snowflake } from "../model/Ids.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"

export const MemePath = { meme_id: Snowflake }

/** Per user, as production limits them (creating fetches and stores a file, so it is the scarcest). */
const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `memes.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

/** Saved media ("memes", part C): a user's own copies of images and videos, from messages or the web. */
export class MemesApi extends HttpApiGroup.make("memes").add(
  HttpApiEndpoint.get("list", "/users/@me/memes", { success: Schema.Array(FavoriteMemeResponse), error: ApiErrors })
    .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("list", 60, 10)).middleware(RateLimit),
  HttpApiEndpoint.get("get", "/users/@me/memes/:meme_id", { params: MemePath, success: FavoriteMemeResponse, error: ApiErrors })
    .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("get", 100, 10)).middleware(RateLimit),
  HttpApiEndpoint.post("createFromUrl", "/users/@me/memes", {
    payload: CreateFavoriteMemeFromUrlRequest,
    success: FavoriteMemeResponse.pipe(HttpApiSchema.status(201)),
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("createFromUrl", 20, 60)).middleware(RateLimit),
  HttpApiEndpoint.post("createFromMessage", "/channels/:channel_id/messages/:message_id/memes", {
    params: MessagePath,
    payload: CreateFavoriteMemeRequest,
    success: FavoriteMemeResponse.pipe(HttpApiSchema.status(201)),
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("createFromMessage", 10, 60)).middleware(RateLimit),
  HttpApiEndpoint.patch("update", "/users/@me/memes/:meme_id", {
    params: MemePath,
    payload: UpdateFavoriteMemeRequest,
    success: FavoriteMemeResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("update", 30, 10)).middleware(RateLimit),
  HttpApiEndpoint.delete("delete", "/users/@me/memes/:meme_id", { params: MemePath, error: ApiErrors })
    .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("delete", 30, 10)).middleware(RateLimit)
).middleware(UserAuthentication) {}
