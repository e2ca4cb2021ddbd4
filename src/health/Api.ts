import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ApiErrors } from "../model/Errors.ts"

export const HealthResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  database: Schema.Literal("ok"),
  redis: Schema.Literals(["ok", "not used"])
})

export class HealthApi extends HttpApiGroup.make("health").add(
  HttpApiEndpoint.get("health", "/_health", { success: HealthResponse, error: ApiErrors })
) {}
