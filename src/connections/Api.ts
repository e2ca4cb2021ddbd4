import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { type AcceptedCredentials, Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { BoundedText } from "../model/Common.ts"
import { ConnectionResponse, ConnectionType, MAX_CONNECTIONS, VisibilityFlags } from "../model/Connections.ts"
import { ApiErrors } from "../model/Errors.ts"
import { Snowflake } from "../model/Ids.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"

const NonNegativeInt32 = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2147483647 }))
/** A host name's longest form. */
const Identifier = BoundedText(1, 253)

export const CreateConnectionRequest = Schema.Struct({
  type: ConnectionType,
  identifier: Identifier,
  visibility_flags: Schema.optional(VisibilityFlags)
})

/** `id` is the identifier (the handle or domain) as it will be connected. */
export const ConnectionVerificationResponse = Schema.Struct({
  id: Schema.String,
  type: ConnectionType,
  token: Schema.String,
  initiation_token: Schema.String,
  instructions: Schema.String
})

export const VerifyAndCreateConnectionRequest = Schema.Struct({
  initiation_token: BoundedText(1, 256),
  visibility_flags: Schema.optional(VisibilityFlags)
})

export const UpdateConnectionRequest = Schema.Struct({
  sort_order: Schema.optionalKey(NonNegativeInt32),
  visibility_flags: Schema.optionalKey(VisibilityFlags)
})

export const ReorderConnectionsRequest = Schema.Struct({
  connection_ids: Schema.Array(Snowflake).check(
    Schema.isMinLength(1),
    Schema.isMaxLength(MAX_CONNECTIONS),
    Schema.makeFilter((ids: ReadonlyArray<string>) => new Set(ids).size === ids.length || "INVALID_FORMAT: A connection is named twice")
  )
})

export const SocialAuthorizeRequest = Schema.Struct({ handle: Identifier })
export const SocialAuthorizeResponse = Schema.Struct({ authorize_url: Schema.String })

/** `type` is checked by the handler, for its own error code (CONNECTION_INVALID_TYPE). */
const ConnectionPath = { type: Schema.String, connection_id: Snowflake }

/** The list: the user's session, or an OAuth2 access token holding `connections`. */
const sessionOrConnectionsScope: AcceptedCredentials = { kinds: ["session", "bearer"], scope: "connections" }

/** Per user. Proving an account asks DNS or another server, so those are held tighter. */
const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `connections.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})
const READ = bucket("read", 30, 10)
const WRITE = bucket("write", 20, 10)
const PROOF = bucket("proof", 10, 60)

/** Account connections (part C, Connections): domains and social-network accounts the user proved are theirs. */
export class ConnectionsApi extends HttpApiGroup.make("connections").add(
  HttpApiEndpoint.get("list", "/users/@me/connections", {
    success: Schema.Array(ConnectionResponse),
    error: ApiErrors
  }).annotate(Credentials, sessionOrConnectionsScope).annotate(RateLimitBucket, READ).middleware(RateLimit),
  HttpApiEndpoint.post("start", "/users/@me/connections", {
    payload: CreateConnectionRequest,
    success: ConnectionVerificationResponse.pipe(HttpApiSchema.status(201)),
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, PROOF).middleware(RateLimit),
  HttpApiEndpoint.post("verifyAndCreate", "/users/@me/connections/verify", {
    payload: VerifyAndCreateConnectionRequest,
    success: ConnectionResponse.pipe(HttpApiSchema.status(201)),
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, PROOF).middleware(RateLimit),
  HttpApiEndpoint.post("socialAuthorize", "/users/@me/connections/social/authorize", {
    payload: SocialAuthorizeRequest,
    success: SocialAuthorizeResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, WRITE).middleware(RateLimit),
  HttpApiEndpoint.patch("reorder", "/users/@me/connections/reorder", {
    payload: ReorderConnectionsRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, WRITE).middleware(RateLimit),
  HttpApiEndpoint.post("reverify", "/users/@me/connections/:type/:connection_id/verify", {
    params: ConnectionPath,
    success: ConnectionResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, PROOF).middleware(RateLimit),
  HttpApiEndpoint.patch("update", "/users/@me/connections/:type/:connection_id", {
    params: ConnectionPath,
    payload: UpdateConnectionRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, WRITE).middleware(RateLimit),
  HttpApiEndpoint.delete("remove", "/users/@me/connections/:type/:connection_id", {
    params: ConnectionPath,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, WRITE).middleware(RateLimit)
).middleware(UserAuthentication) {}
