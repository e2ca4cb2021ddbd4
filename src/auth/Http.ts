import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../http/Api.ts"
import { emailBanned } from "../admin/bans/Refusals.ts"
import { BansRepo } from "../admin/bans/Repo.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { BadRequest, type FieldError, Forbidden } from "../model/Errors.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { SsoFlow } from "../sso/Flow.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { UsersRepo } from "../users/Repo.ts"
import { UserUpdates } from "../users/Updates.ts"
import type { RegisterRequest } from "./Api.ts"
import { requestClient } from "./Client.ts"
import { IpAuthorizations } from "./IpAuthorizations.ts"
import { LoginCompletion } from "./LoginCompletion.ts"
import { passwordProblems } from "./PasswordPolicy.ts"
import { Passwords } from "./Passwords.ts"
import { Recovery } from "./Recovery.ts"
import { Sessions } from "./Sessions.ts"
import { SignIn } from "./SignIn.ts"
import { freeDiscriminator, usernameProblem } from "./Usernames.ts"
import { suggestUsernames, usernameBase } from "./UsernameSuggestions.ts"

export const MINIMUM_AGE = 13

const ageOn = (dateOfBirth: string, today: Date): number | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dateOfBirth)
  if (m === null) return undefined
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const born = new Date(Date.UTC(y, mo - 1, d))
  if (born.getUTCFullYear() !== y || born.getUTCMonth() !== mo - 1 || born.getUTCDate() !== d || born > today) {
    return undefined
  }
  const before = today.getUTCMonth() < mo - 1 || (today.getUTCMonth() === mo - 1 && today.getUTCDate() < d)
  return today.getUTCFullYear() - y - (before ? 1 : 0)
}

/** Every rule of part A's registration that does not need the database, as field errors. */
export const registrationProblems = (body: RegisterRequest, today: Date): Array<FieldError> => {
  const problems: Array<FieldError> = []
  if (body.consent !== true) {
    problems.push({ path: "consent", code: "MUST_AGREE_TO_TOS_AND_PRIVACY_POLICY", message: "You must agree to the terms" })
  }
  const age = body.date_of_birth === undefined ? undefined : ageOn(body.date_of_birth, today)
  if (age === undefined) {
    problems.push({ path: "date_of_birth", code: "INVALID_DATE_OF_BIRTH_FORMAT", message: "Expected YYYY-MM-DD" })
  } else if (age < MINIMUM_AGE) {
    problems.push({ path: "date_of_birth", code: "MUST_BE_MINIMUM_AGE", message: `You must be at least ${MINIMUM_AGE}` })
  }
  if (body.email === undefined) problems.push({ path: "email", code: "EMAIL_IS_REQUIRED", message: "Email is required" })
  problems.push(...passwordProblems(body.password))
  const username = body.username === undefined ? undefined : usernameProblem(body.username)
  if (username !== undefined) problems.push(username)
  return problems
}

const ssoRequired = () =>
  new Forbidden({ code: "SSO_REQUIRED", message: "This instance signs people in through single sign-on" })

const invalid = (errors: ReadonlyArray<FieldError>) =>
  new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors })


const invalidLogin = () =>
  invalid([
    { path: "email", code: "INVALID_EMAIL_OR_PASSWORD", message: "Login or password is invalid" },
    { path: "password", code: "INVALID_EMAIL_OR_PASSWORD", message: "Login or password is invalid" }
  ])

const AuthHandlers = HttpApiBuilder.group(Api, "auth", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const users = yield* UsersRepo
    const passwords = yield* Passwords
    const sessions = yield* Sessions
    const snowflakes = yield* Snowflakes
    const completion = yield* LoginCompletion
    const signIn = yield* SignIn
    const sso = yield* SsoFlow
    const ipAuthorizations = yield* IpAuthorizations
    const recovery = yield* Recovery
    const updates = yield* UserUpdates
    const bans = yield* BansRepo

    const discriminatorFor = (username: string) => Effect.map(users.takenDiscriminators(username), freeDiscriminator)

    return handlers
      .handle("register", ({ payload }) =>
        Effect.gen(function*() {
          const problems = registrationProblems(payload, new Date())
          if (problems.length > 0) return yield* invalid(problems)
          const email = payload.email ?? ""
          const password = payload.password ?? ""
          if (yield* bans.emailBanned(email)) return yield* emailBanned()
          if (yield* users.emailTaken(email)) {
            return yield* invalid([{ path: "email", code: "EMAIL_ALREADY_IN_USE", message: "Email is already registered" }])
          }
          const username = payload.username ?? usernameBase(payload.global_name ?? email.split("@")[0] ?? "")
          const discriminator = yield* discriminatorFor(username)
          if (discriminator === undefined) {
            return yield* invalid([{ path: "username", code: "TAG_ALREADY_TAKEN", message: "Too many users have this username" }])
          }
          // An operator's reservation gives this email's account its id, unless an account has it already.
          const reserved = yield* bans.reservedId(email)
          const id = reserved !== undefined && (yield* users.findById(reserved)) === undefined ? reserved : snowflakes.next()
          const inserted = yield* users.insert({
            id,
            username,
            discriminator,
            globalName: payload.global_name ?? null,
            email,
            passwordHash: yield* passwords.hash(password),
            dateOfBirth: payload.date_of_birth ?? "",
            theme: payload.theme ?? "system"
          })
          if (!inserted) {
            return yield* invalid([{ path: "email", code: "EMAIL_ALREADY_IN_USE", message: "Email is already registered" }])
          }
          yield* recovery.welcome(id, email)
          // Registering makes the address a known one (LoginCompletion records it).
          return yield* completion.finish(id)
        }))
      .handle("login", ({ payload }) =>
        Effect.gen(function*() {
          const user = yield* users.findByEmail(payload.email)
          // The same work and the same answer whether the account exists or not.
          const ok = yield* passwords.verify(user?.password_hash, payload.password)
          if (!ok || user === undefined) return yield* invalidLogin()
          // With SSO enforced people sign in at the identity provider; operators keep their
          // password so that a broken provider cannot lock everyone out.
          if (user.acls.length === 0 && (yield* sso.status).enforced) return yield* ssoRequired()
          const challenge = yield* signIn.mfaChallenge(user.id)
          if (challenge !== undefined) return challenge
          const { ip } = yield* requestClient
          if (ip !== null && user.email !== null && (yield* ipAuthorizations.required(user.id, ip))) {
            return yield* (yield* ipAuthorizations.start(user.id, user.email, ip))
          }
          return yield* completion.finish(user.id)
        }))
      .handle("logout", () => Effect.flatMap(CurrentUser, (me) => sessions.revoke(me.session)))
      .handle("forgot", ({ payload }) => recovery.forgot(payload.email))
      .handle("resetTokenStatus", ({ params }) => Effect.map(recovery.resetTokenValid(params.token), (valid) => ({ valid })))
      .handle("reset", ({ payload }) => recovery.reset(payload.token, payload.password))
      .handle("emailRevert", ({ payload }) => recovery.revert(payload.token, payload.password))
      .handle("verify", ({ payload }) =>
        recovery.verify(payload.token).pipe(Effect.flatMap((userId) => Effect.ignore(updates.announce(userId)))))
      .handle("verifyResend", () => Effect.flatMap(CurrentUser, (me) => recovery.resendVerification(me.id)))
      .handle("authorizeIp", ({ payload }) => ipAuthorizations.authorize(payload.token))
      .handle("ipAuthorizationResend", ({ payload }) => ipAuthorizations.resend(payload.ticket))
      .handle("ipAuthorizationPoll", ({ query }) =>
        Effect.gen(function*() {
          const result = yield* ipAuthorizations.poll(query.ticket)
          if (!result.completed) return { completed: false, token: null, user_id: null, user: null }
          return { completed: true, ...(yield* completion.finish(result.userId)) }
        }))
      .handle("usernameSuggestions", ({ payload }) =>
        Effect.map(suggestUsernames(sql, payload.global_name), (suggestions) => ({ suggestions })))
  })))

/** The auth routes, with their rate limiting (the middleware is built here so no shared file changes). */
export const AuthHttp = perRequestMiddlewaresOnly(AuthHandlers).pipe(Layer.provide(RateLimitLive))
