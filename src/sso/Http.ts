import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Acl, holds } from "../admin/Acls.ts"
import { AdminRepo } from "../admin/Repo.ts"
import { LoginCompletion } from "../auth/LoginCompletion.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { CurrentOperator } from "../http/Authentication.ts"
import { missingPermissions } from "../model/Errors.ts"
import { SsoFlow } from "./Flow.ts"
import { SsoSettings } from "./Settings.ts"
import { toConfigResponse } from "./SettingsRules.ts"

export const SsoHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "sso", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const flow = yield* SsoFlow
    const login = yield* LoginCompletion
    return handlers
      .handle("status", () => flow.status)
      .handle("start", ({ payload }) =>
        flow.start({ redirectTo: payload?.redirect_to, redirectUri: payload?.redirect_uri }))
      .handle("complete", ({ payload }) =>
        Effect.gen(function*() {
          const { userId, redirectTo } = yield* flow.complete(payload)
          return { ...(yield* login.finish(userId)), redirect_to: redirectTo }
        }))
  }))))


export const SsoAdminHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "ssoAdmin", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const settings = yield* SsoSettings
    const audit = yield* AdminRepo
    return handlers
      .handle("getInstanceConfig", () =>
        Effect.map(settings.get, (row) => ({ sso: toConfigResponse(row) })))
      .handle("updateInstanceConfig", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          if (payload.sso === undefined) return { sso: toConfigResponse(yield* settings.get) }
          const { row, changed } = yield* settings.update(payload.sso)
          yield* audit.audit({
            adminId: op.id,
            action: "instance_config.update",
            targetType: "instance_config",
            targetId: "sso",
            metadata: { fields: changed.join(",") }
          })
          return { sso: toConfigResponse(row) }
        }))
  }))))
