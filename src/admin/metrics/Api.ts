import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { ApiErrors } from "../../model/Errors.ts"

/**
 * This process's metrics in the Prometheus text format, for an operator
 * (`metrics:view`): Prometheus scrapes it with the key in `authorization`.
 * METRICS_PORT serves the same without credentials on a port of its own.
 */
export class MetricsApi extends HttpApiGroup.make("metrics").add(
  HttpApiEndpoint.get("metrics", "/metrics", { error: ApiErrors })
).middleware(AdminAuthentication) {}
