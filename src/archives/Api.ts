import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { Snowflake } from "../model/Ids.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import { HarvestCreationResponse, HarvestDownloadUrlResponse, HarvestStatusResponse } from "./Schemas.ts"

const HarvestPath = { harvestId: Snowflake }

const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `harvest.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

/** A user's own data export ("harvest", part C): asked for, watched while it runs, downloaded through a signed URL. */
export class HarvestApi extends HttpApiGroup.make("harvest").add(
  HttpApiEndpoint.post("create", "/users/@me/harvest", { success: HarvestCreationResponse, error: ApiErrors })
    .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("create", 5, 60)).middleware(RateLimit),
  HttpApiEndpoint.get("latest", "/users/@me/harvest/latest", { success: Schema.NullOr(HarvestStatusResponse), error: ApiErrors })
    .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("status", 60, 10)).middleware(RateLimit),
  HttpApiEndpoint.get("get", "/users/@me/harvest/:harvestId", { params: HarvestPath, success: HarvestStatusResponse, error: ApiErrors })
    .annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("status", 60, 10)).middleware(RateLimit),
  HttpApiEndpoint.get("download", "/users/@me/harvest/:harvestId/download", {
    params: HarvestPath,
    success: HarvestDownloadUrlResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("download", 10, 60)).middleware(RateLimit)
).middleware(UserAuthentication) {}
