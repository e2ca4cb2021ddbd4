import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { LimitConfig, LimitRule } from "../../model/Limits.ts"

export const LimitConfigUpdateRequest = Schema.Struct({ limit_config: LimitConfig })

const LimitKeyMetadata = Schema.Struct({
  key: Schema.String,
  label: Schema.String,
  description: Schema.String,
  category: Schema.String,
  scope: Schema.String,
  isToggle: Schema.Boolean,
  unit: Schema.optional(Schema.Literals(["bytes", "count"])),
  min: Schema.optional(Schema.Number),
  max: Schema.optional(Schema.Number)
})

/** The production service's LimitConfigGetResponse: the configuration, and what an admin console needs to edit it. */
export const LimitConfigGetResponse = Schema.Struct({
  limit_config: Schema.Struct({
    traitDefinitions: Schema.Array(Schema.String),
    rules: Schema.Array(Schema.Struct({ ...LimitRule.fields, modifiedFields: Schema.optional(Schema.Array(Schema.String)) }))
  }),
  limit_config_json: Schema.String,
  self_hosted: Schema.Boolean,
  defaults: Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Number)),
  metadata: Schema.Record(Schema.String, LimitKeyMetadata),
  categories: Schema.Record(Schema.String, Schema.String),
  limit_keys: Schema.Array(Schema.String),
  bounds: Schema.Record(Schema.String, Schema.Struct({ min: Schema.Number, max: Schema.Number }))
})

/** Part B: the instance's limits (src/platform/Limits.ts), read and replaced by operators. */
export class AdminLimitsApi extends HttpApiGroup.make("adminLimits").add(
  HttpApiEndpoint.post("getLimitConfig", "/admin/limit-config/get", { success: LimitConfigGetResponse, error: ApiErrors }),
  HttpApiEndpoint.post("updateLimitConfig", "/admin/limit-config/update", {
    payload: LimitConfigUpdateRequest,
    success: LimitConfigGetResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
