import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomInt } from "node:crypto"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { BadRequest, type FieldError } from "../http/Errors.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { UsersRepo } from "../users/Repo.ts"
import type { RegisterRequest } from "./Api.ts"
import { requestClient } from "./Client.ts"
import { Passwords } from "./Passwords.ts"
import { Sessions } from "./Sessions.ts"

export const MINIMUM_AGE = 13
const PASSWORD_MIN = 8
const PASSWORD_MAX = 256

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
  const passwordLength = body.password === undefined ? 0 : [...body.password].length
  if (passwordLength < PASSWORD_MIN || passwordLength > PASSWORD_MAX) {
    problems.push({
      path: "password",
      code: "PASSWORD_LENGTH_INVALID",
      message: `Must be between ${PASSWORD_MIN} and ${PASSWORD_MAX} in length`
    })
  }
  const username = body.username
  if (username !== undefined && ([...username].length < 2 || [...username].length > 32 || !/^[\p{L}\p{N}_.]+$/u.test(username))) {
    problems.push({ path: "username", code: "STRING_LENGTH_INVALID", message: "2 to 32 letters, digits, _ or ." })
  }
  return problems
}

const invalid = (errors: ReadonlyArray<FieldError>) =>
  new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors })


export const AuthHttp = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function*() {
    const users = yield* UsersRepo
    const passwords = yield* Passwords
    const sessions = yield* Sessions
    const snowflakes = yield* Snowflakes

    const freeDiscriminator = (username: string) =>
      Effect.map(users.takenDiscriminators(username), (taken) => {
        for (let tries = 0; tries < 50; tries++) {
          const candidate = String(randomInt(1, 10_000)).padStart(4, "0")
          if (!taken.has(candidate)) return candidate
        }
        return undefined
      })

    return handlers
      .handle("register", ({ payload }) =>
        Effect.gen(function*() {
          const problems = registrationProblems(payload, new Date())
          if (problems.length > 0) return yield* invalid(problems)
          const email = payload.email ?? ""
          const password = payload.password ?? ""
          if (yield* users.emailTaken(email)) {
            return yield* invalid([{ path: "email", code: "EMAIL_ALREADY_IN_USE", message: "Email is already registered" }])
          }
          const username = payload.username ?? (email.split("@")[0] ?? "user").replace(/[^\p{L}\p{N}_.]/gu, "").slice(0, 32).padEnd(2, "_")
          const discriminator = yield* freeDiscriminator(username)
          if (discriminator === undefined) {
            return yield* invalid([{ path: "username", code: "TAG_ALREADY_TAKEN", message: "Too many users have this username" }])
          }
          const id = snowflakes.next()
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
          const token = yield* sessions.create(id, yield* requestClient)
          return { token, user_id: id }
        }))
      .handle("login", ({ payload }) =>
        Effect.gen(function*() {
          const user = yield* users.findByEmail(payload.email)
          // The same work and the same answer whether the account exists or not.
          const ok = yield* passwords.verify(user?.password_hash, payload.password)
          if (!ok || user === undefined) {
            return yield* invalid([
              { path: "email", code: "INVALID_EMAIL_OR_PASSWORD", message: "Login or password is invalid" },
              { path: "password", code: "INVALID_EMAIL_OR_PASSWORD", message: "Login or password is invalid" }
            ])
          }
          const token = yield* sessions.create(user.id, yield* requestClient)
          return { token, user_id: user.id }
        }))
      .handle("logout", () => Effect.flatMap(CurrentUser, (me) => sessions.revoke(me.session)))
  }))
