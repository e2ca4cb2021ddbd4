import { Schema } from "effect"

/**
 * The error object of the wire (conventions.md, Errors): `{code, message, ...}`.
 * Each class is one HTTP status; its `code` names the condition. The `_tag`
 * exists for `catchTag` but is omitted from the encoded body, so clients see
 * exactly the documented shape.
 */
export const FieldError = Schema.Struct({
  path: Schema.String,
  message: Schema.String,
  code: Schema.optional(Schema.String)
})
export type FieldError = typeof FieldError.Type

const wire = <Tag extends string>(tag: Tag) => ({
  _tag: Schema.tagDefaultOmit(tag),
  code: Schema.String,
  message: Schema.String
})

export class BadRequest extends Schema.TaggedError<BadRequest>()(
  "BadRequest",
  Schema.Struct({ ...wire("BadRequest"), errors: Schema.optional(Schema.Array(FieldError)) }),
  { httpApiStatus: 400 }
) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  Schema.Struct(wire("Unauthorized")),
  { httpApiStatus: 401 }
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  Schema.Struct({
    ...wire("Forbidden"),
    /** SUDO_MODE_REQUIRED: whether an MFA proof (rather than the password) is expected. */
    has_mfa: Schema.optional(Schema.Boolean),
    /** IP_AUTHORIZATION_REQUIRED: the ticket to poll and resend with, where the email went, seconds until a resend. */
    ticket: Schema.optional(Schema.String),
    email: Schema.optional(Schema.String),
    resend_available_in: Schema.optional(Schema.Number),
    /** MISSING_OAUTH_SCOPE: the scope the access token lacks. */
    required_scope: Schema.optional(Schema.String),
    /** ACCOUNT_SUSPICIOUS_ACTIVITY: what the user must verify (SuspiciousActivityFlags), as the production service nests it. */
    data: Schema.optional(Schema.Struct({ suspicious_activity_flags: Schema.Int }))
  }),
  { httpApiStatus: 403 }
) {}

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  Schema.Struct(wire("NotFound")),
  { httpApiStatus: 404 }
) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  Schema.Struct(wire("PayloadTooLarge")),
  { httpApiStatus: 413 }
) {}

/** Rate limited (conventions.md): `retry_after` in seconds, `global` for the per-user limit. */
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()(
  "TooManyRequests",
  Schema.Struct({ ...wire("TooManyRequests"), retry_after: Schema.Number, global: Schema.Boolean }),
  { httpApiStatus: 429 }
) {}

/** An actor did not answer in time: the write may or may not have happened. */
export class Unavailable extends Schema.TaggedError<Unavailable>()(
  "Unavailable",
  Schema.Struct(wire("Unavailable")),
  { httpApiStatus: 503 }
) {}

/**
 * Every error an endpoint may answer with, declared on each so the OpenAPI
 * document lists them. The body-size limit (413) is enforced before decoding,
 * by the request middleware, which answers in this same shape.
 */
export const ApiErrors = [BadRequest, Unauthorized, Forbidden, NotFound, PayloadTooLarge, TooManyRequests, Unavailable] as const

/** One invalid field, reported the way validation failures are (`INVALID_FORM_BODY`). */
export const invalidField = (path: string, code: string, message: string) =>
  new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: [{ path, code, message }] })

export const unauthorized = () => new Unauthorized({ code: "UNAUTHORIZED", message: "401: Unauthorized" })
export const missingPermissions = () => new Forbidden({ code: "MISSING_PERMISSIONS", message: "Missing permissions" })
/** A valid credential of a kind the route does not accept (a bot or an OAuth2 token on a person's own route). */
export const accessDenied = () => new Forbidden({ code: "ACCESS_DENIED", message: "Access denied" })
/** Anything but a bot token on a bot-only route. */
export const invalidToken = () => new Unauthorized({ code: "INVALID_TOKEN", message: "Invalid token" })
export const missingOAuthScope = (scope: string) =>
  new Forbidden({ code: "MISSING_OAUTH_SCOPE", message: `Missing OAuth2 scope: ${scope}`, required_scope: scope })
export const missingAccess = () => new Forbidden({ code: "MISSING_ACCESS", message: "Missing access" })
/** Content a legal hold keeps (a report's evidence): no deletion path removes it until the hold is released. */
export const underLegalHold = (what: string) =>
  new Forbidden({ code: "RESOURCE_LOCKED", message: `${what} under a legal hold and cannot be deleted until it is released` })
export const sudoModeRequired = (hasMfa: boolean) =>
  new Forbidden({ code: "SUDO_MODE_REQUIRED", message: "This action needs sudo mode", has_mfa: hasMfa })
export const unknown = (
  what: "GUILD" | "USER" | "CHANNEL" | "MESSAGE" | "MEMBER" | "ROLE" | "API_KEY" | "SESSION" | "WEBAUTHN_CREDENTIAL" | "PUSH_SUBSCRIPTION" | "HANDOFF_CODE" | "WEBHOOK"
) =>
  new NotFound({ code: `UNKNOWN_${what}`, message: `Unknown ${what.toLowerCase().replace("_", " ")}` })
/** A service the request needs did not answer (503 SERVICE_UNAVAILABLE); `message` says which, and what to do. */
export const serviceUnavailable = (message: string) => new Unavailable({ code: "SERVICE_UNAVAILABLE", message })
export const actorUnavailable = () =>
  serviceUnavailable("The guild did not answer in time; the outcome is unknown and the request is safe to retry")
