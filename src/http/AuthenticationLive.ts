import { Effect, Layer, Redacted } from "effect"
import { Acl, holds } from "../admin/Acls.ts"
import { AdminRepo } from "../admin/Repo.ts"
import { Sessions } from "../auth/Sessions.ts"
import { UsersRepo } from "../users/Repo.ts"
import { AdminAuthentication, CurrentOperator, CurrentUser, parseAuthorization, UserAuthentication } from "./Authentication.ts"
import { missingPermissions, unauthorized } from "./Errors.ts"

/** Session tokens only, for now: bot and OAuth2 credentials arrive with their issues. */
export const UserAuthenticationLive = Layer.effect(
  UserAuthentication,
  Effect.gen(function*() {
    const sessions = yield* Sessions
    return UserAuthentication.of({
      authorization: (httpEffect, { credential }) =>
        Effect.gen(function*() {
          const parsed = parseAuthorization(Redacted.value(credential))
          if (parsed === undefined || parsed.scheme !== "session") return yield* unauthorized()
          const session = yield* sessions.resolve(parsed.secret)
          if (session === undefined) return yield* unauthorized()
          return yield* Effect.provideService(httpEffect, CurrentUser, { id: session.userId, session })
        })
    })
  })
)

/** `Admin <key>`, or a user session whose ACLs open the admin API (conventions.md). */
export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Effect.gen(function*() {
    const admin = yield* AdminRepo
    const sessions = yield* Sessions
    const users = yield* UsersRepo
    return AdminAuthentication.of({
      authorization: (httpEffect, { credential }) =>
        Effect.gen(function*() {
          const parsed = parseAuthorization(Redacted.value(credential))
          if (parsed === undefined || parsed.scheme === "bot" || parsed.scheme === "bearer") return yield* unauthorized()
          if (parsed.scheme === "admin") {
            const key = yield* admin.keyBySecret(parsed.secret)
            if (key === undefined || key.expired) return yield* unauthorized()
            return yield* Effect.provideService(httpEffect, CurrentOperator, { id: key.key_id, acls: new Set(key.acls) })
          }
          const session = yield* sessions.resolve(parsed.secret)
          if (session === undefined) return yield* unauthorized()
          const user = yield* users.findById(session.userId)
          const acls = new Set(user?.acls ?? [])
          if (!holds(acls, Acl.authenticate)) return yield* missingPermissions()
          return yield* Effect.provideService(httpEffect, CurrentOperator, { id: session.userId, acls })
        })
    })
  })
)
