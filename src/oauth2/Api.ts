import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { SudoFields } from "../auth/Sudo.ts"
import { Credentials, UserAuthentication, bearerOnly, botOnly, userOnly, userOrBot } from "../http/Authentication.ts"
import { ApplicationId } from "../model/Ids.ts"
import { ApiErrors } from "../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import {
  ApplicationCreateRequest,
  ApplicationPublicResponse,
  ApplicationResponse,
  ApplicationsMeResponse,
  ApplicationUpdateRequest,
  AuthorizeConsentRequest,
  BotProfileResponse,
  BotProfileUpdateRequest,
  BotTokenResetResponse,
  OAuth2AuthorizationResponse,
  OAuth2ConsentResponse
} from "./Schemas.ts"
import {
  IntrospectPayload,
  OAuth2IntrospectResponse,
  OAuth2MeResponse,
  OAuth2TokenResponse,
  OAuth2UserInfoResponse,
  RevokePayload,
  TokenPayload
} from "./TokenSchemas.ts"

const idPath = { id: ApplicationId }
/** SudoVerificationSchema; a request without a body reads as null (the sudo header may carry the proof). */
const SudoProof = [Schema.Struct(SudoFields), Schema.Null] as const
const ApplicationList = Schema.Array(ApplicationResponse)

/** Per user, or per IP for the anonymous token endpoints. */
const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `oauth2.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

/** Applications as their owner manages them, and the bot's view of its own. */
export class ApplicationsApi extends HttpApiGroup.make("applications").add(
  HttpApiEndpoint.post("create", "/oauth2/applications", {
    payload: ApplicationCreateRequest,
    success: ApplicationResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("create", 10, 60)).middleware(RateLimit),
  /** A person's applications; for a bot, its own application. */
  HttpApiEndpoint.get("mine", "/oauth2/applications/@me", {
    success: Schema.Union([ApplicationList, ApplicationsMeResponse]),
    error: ApiErrors
  }).annotate(Credentials, userOrBot),
  HttpApiEndpoint.get("listMine", "/users/@me/applications", { success: ApplicationList, error: ApiErrors }).annotate(Credentials, userOnly),
  HttpApiEndpoint.get("botApplication", "/applications/@me", { success: ApplicationsMeResponse, error: ApiErrors }).annotate(Credentials, botOnly),
  HttpApiEndpoint.get("get", "/oauth2/applications/:id", { params: idPath, success: ApplicationResponse, error: ApiErrors }).annotate(Credentials, userOnly),
  HttpApiEndpoint.patch("update", "/oauth2/applications/:id", {
    params: idPath,
    payload: ApplicationUpdateRequest,
    success: ApplicationResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly),
  /** In the reference, not in the spec's list: sudo mode, like the resets. */
  HttpApiEndpoint.delete("delete", "/oauth2/applications/:id", { params: idPath, payload: SudoProof, error: ApiErrors }).annotate(Credentials, userOnly)
    .annotate(RateLimitBucket, bucket("delete", 10, 60)).middleware(RateLimit),
  HttpApiEndpoint.post("resetClientSecret", "/oauth2/applications/:id/client-secret/reset", {
    params: idPath,
    payload: SudoProof,
    success: ApplicationResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("reset", 10, 60)).middleware(RateLimit),
  HttpApiEndpoint.patch("updateBot", "/oauth2/applications/:id/bot", {
    params: idPath,
    payload: BotProfileUpdateRequest,
    success: BotProfileResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("bot-update", 20, 60)).middleware(RateLimit),
  HttpApiEndpoint.post("resetBotToken", "/oauth2/applications/:id/bot/reset-token", {
    params: idPath,
    payload: SudoProof,
    success: BotTokenResetResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("reset", 10, 60)).middleware(RateLimit)
).middleware(UserAuthentication) {}

/** GET /oauth2/applications/{id}/public: what a consent screen shows, to anyone. */
export class PublicApplicationsApi extends HttpApiGroup.make("publicApplications").add(
  HttpApiEndpoint.get("get", "/oauth2/applications/:id/public", { params: idPath, success: ApplicationPublicResponse, error: ApiErrors })
    .annotate(RateLimitBucket, bucket("public", 60, 10)).middleware(RateLimit)
) {}

/** A person granting applications access: consent (bots join guilds here) and the grants they hold. */
export class OAuth2ConsentApi extends HttpApiGroup.make("oauth2Consent").add(
  HttpApiEndpoint.post("consent", "/oauth2/authorize/consent", {
    payload: AuthorizeConsentRequest,
    success: OAuth2ConsentResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("consent", 20, 60)).middleware(RateLimit),
  HttpApiEndpoint.get("authorizations", "/oauth2/@me/authorizations", {
    success: Schema.Array(OAuth2AuthorizationResponse),
    error: ApiErrors
  }).annotate(Credentials, userOnly)
).middleware(UserAuthentication) {}

/**
 * The provider's token endpoints (client credentials in the body or HTTP
 * Basic) and the routes an access token (`Bearer`) reads.
 */
export class OAuth2TokensApi extends HttpApiGroup.make("oauth2Tokens").add(
  HttpApiEndpoint.post("token", "/oauth2/token", { payload: TokenPayload, success: OAuth2TokenResponse, error: ApiErrors })
    .annotate(RateLimitBucket, bucket("token", 20, 60)).middleware(RateLimit),
  HttpApiEndpoint.post("revoke", "/oauth2/token/revoke", { payload: RevokePayload, error: ApiErrors })
    .annotate(RateLimitBucket, bucket("token", 20, 60)).middleware(RateLimit),
  HttpApiEndpoint.post("introspect", "/oauth2/introspect", { payload: IntrospectPayload, success: OAuth2IntrospectResponse, error: ApiErrors })
    .annotate(RateLimitBucket, bucket("token", 20, 60)).middleware(RateLimit),
  HttpApiEndpoint.get("me", "/oauth2/@me", { success: OAuth2MeResponse, error: ApiErrors })
    .annotate(Credentials, bearerOnly()).middleware(UserAuthentication),
  HttpApiEndpoint.get("userinfo", "/oauth2/userinfo", { success: OAuth2UserInfoResponse, error: ApiErrors })
    .annotate(Credentials, bearerOnly()).middleware(UserAuthentication)
) {}
