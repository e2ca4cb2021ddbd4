import { Context } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import type { Session } from "../auth/Sessions.ts"
import type { Grant } from "../oauth2/Grants.ts"
import { Forbidden, Unauthorized } from "../model/Errors.ts"
import type { UserId } from "../model/Ids.ts"

/*
 * The `Authorization` header carries every kind of credential (conventions.md):
 * a bare session token, `Bot …`, `Bearer …` or `Admin …`. The middlewares read
 * it themselves, so the prefix is ours to interpret.
 */

/** Who is calling a user route. */
export class CurrentUser extends Context.Service<CurrentUser, {
  readonly id: UserId
  readonly session: Session
  /** Set when the caller is a bot (`Bot <token>`): its application, whose id is also the bot's. */
  readonly applicationId?: string
  /** Set when the caller presented an OAuth2 access token (`Bearer <token>`): what it grants. */
  readonly grant?: Grant
}>()("guildhall/CurrentUser") {}

/** A credential a user route may accept (conventions.md, Authentication header; reference/operations.md `auth:`). */
export type CredentialKind = "session" | "bot" | "bearer"

/**
 * Which credentials an endpoint accepts: the `auth:` line of reference/operations.md
 * (`sessionToken`, `botToken`, `oauth2Token`). Every endpoint behind
 * `UserAuthentication` declares it (`.annotate(Credentials, userOnly)`);
 * `test/http/Credentials.test.ts` holds the declarations to the reference.
 */
export interface AcceptedCredentials {
  readonly kinds: ReadonlyArray<CredentialKind>
  /** The OAuth2 scope an access token must hold here (when `kinds` has `bearer`). */
  readonly scope?: string
}
export class Credentials extends Context.Service<Credentials, AcceptedCredentials>()("guildhall/Credentials") {}

/** A person's own session only: what bots and OAuth2 applications may not do for them. */
export const userOnly: AcceptedCredentials = { kinds: ["session"] }
/** A person's session or a bot. */
export const userOrBot: AcceptedCredentials = { kinds: ["session", "bot"] }
/** A bot only (`Bot <token>`). */
export const botOnly: AcceptedCredentials = { kinds: ["bot"] }
/** A session, a bot, or an access token holding `scope`. */
export const userBotOrBearer = (scope: string): AcceptedCredentials => ({ kinds: ["session", "bot", "bearer"], scope })
/** An OAuth2 access token only; `scope` when one is needed. */
export const bearerOnly = (scope?: string): AcceptedCredentials =>
  scope === undefined ? { kinds: ["bearer"] } : { kinds: ["bearer"], scope }

export class UserAuthentication extends HttpApiMiddleware.Service<UserAuthentication, {
  provides: CurrentUser
}>()("guildhall/UserAuthentication", {
  error: [Unauthorized, Forbidden]
}) {}

/** Who is calling an `/admin` route: an API key, or a user holding admin ACLs. */
export class CurrentOperator extends Context.Service<CurrentOperator, {
  /** The key's id for API keys, the user's id for users: what audit logs record. */
  readonly id: string
  readonly acls: ReadonlySet<string>
}>()("guildhall/CurrentOperator") {}

export class AdminAuthentication extends HttpApiMiddleware.Service<AdminAuthentication, {
  provides: CurrentOperator
}>()("guildhall/AdminAuthentication", {
  error: [Unauthorized, Forbidden]
}) {}

/** Splits `Bot x`, `Bearer x`, `Admin x` and a bare token. */
export const parseAuthorization = (
  value: string
): { readonly scheme: "session" | "bot" | "bearer" | "admin"; readonly secret: string } | undefined => {
  const space = value.indexOf(" ")
  if (space < 0) return value.length > 0 ? { scheme: "session", secret: value } : undefined
  const prefix = value.slice(0, space)
  const secret = value.slice(space + 1).trim()
  if (secret.length === 0) return undefined
  switch (prefix) {
    case "Bot":
      return { scheme: "bot", secret }
    case "Bearer":
      return { scheme: "bearer", secret }
    case "Admin":
      return { scheme: "admin", secret }
    default:
      return undefined
  }
}

