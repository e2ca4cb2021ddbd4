import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { DEFAULT_CONFIG, LIMIT_CATEGORIES, LIMIT_KEYS, type LimitConfig, LIMITS } from "../../model/Limits.ts"
import { Limits } from "../../platform/Limits.ts"
import { AdminRepo } from "../Repo.ts"

const metadata = Object.fromEntries(LIMIT_KEYS.map((key) => {
  const spec = LIMITS[key]
  return [key, {
    key,
    label: spec.label,
    description: spec.description,
    category: spec.category,
    scope: spec.scope,
    isToggle: key.startsWith("feature_"),
    ...(spec.unit === undefined ? {} : { unit: spec.unit }),
    min: 0,
    max: spec.max
  }]
}))
const bounds = Object.fromEntries(LIMIT_KEYS.map((key) => [key, { min: 0, max: LIMITS[key].max }]))
const defaults = Object.fromEntries(DEFAULT_CONFIG.rules.map((rule) => [rule.id, rule.limits]))

/** The keys of each rule that differ from the default rule of the same id (or the defaults), as production marks them. */
const withModifiedFields = (config: LimitConfig) => ({
  traitDefinitions: config.traitDefinitions ?? [],
  rules: config.rules.map((rule) => {
    const base = defaults[rule.id] ?? defaults["default"] ?? {}
    const modified = Object.entries(rule.limits).filter(([key, value]) => base[key] !== value).map(([key]) => key)
    return modified.length === 0 ? rule : { ...rule, modifiedFields: modified }
  })
})

const view = (config: LimitConfig) => {
  const shown = withModifiedFields(config)
  return {
    limit_config: shown,
    limit_config_json: JSON.stringify(shown, null, 2),
    self_hosted: true,
    defaults,
    metadata,
    categories: LIMIT_CATEGORIES,
    limit_keys: [...LIMIT_KEYS],
    bounds
  }
}

export const AdminLimitsHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "adminLimits", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const limits = yield* Limits
    const admin = yield* AdminRepo
    return handlers
      .handle("getLimitConfig", () => Effect.sync(() => view(limits.config())))
      .handle("updateLimitConfig", ({ payload }) =>
        Effect.gen(function*() {
          const config: LimitConfig = { traitDefinitions: payload.limit_config.traitDefinitions ?? [], rules: payload.limit_config.rules }
          // In force here and on every other process before the operator hears back.
          yield* limits.replace(config)
          const op = yield* CurrentOperator
          yield* admin.audit({
            adminId: op.id,
            action: "update_limit_config",
            targetType: "limit_config",
            targetId: "limit_config",
            metadata: { rules: String(config.rules.length), rule_ids: config.rules.map((r) => r.id).join(",").slice(0, 4000) }
          })
          return view(limits.config())
        }))
  }))))
