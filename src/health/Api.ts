import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ApiErrors } from "../model/Errors.ts"

export const HealthResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  database: Schema.Literal("ok"),
  redis: Schema.Literals(["ok", "not used"])
})

export const ReadyResponse = Schema.Struct({
  status: Schema.Literal("ready"),
  database: Schema.Literal("ok"),
  redis: Schema.Literals(["ok", "not used"]),
  cluster: Schema.Literal("ok")
})

/**
 * `/_health`: liveness (the process answers, and so do Postgres and Redis).
 * `/_ready`: readiness, for load balancers and Kubernetes: that, and the
 * process's place in the cluster (shards/Readiness.ts); 503 until then.
 */
export class HealthApi extends HttpApiGroup.make("health").add(
  HttpApiEndpoint.get("health", "/_health", { success: HealthResponse, error: ApiErrors }),
  HttpApiEndpoint.get("ready", "/_ready", { success: ReadyResponse, error: ApiErrors })
) {}
