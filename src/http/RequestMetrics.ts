import { Context, Fiber } from "effect"
import { HttpRouter } from "effect/http"
import { httpRouteSeries, type HttpRouteSeries, madeOnce, seconds, UNMATCHED_ROUTE } from "../platform/Metrics.ts"

/*
 * The HTTP request metrics (guildhall_http_requests_total and
 * guildhall_http_request_duration_seconds), labelled with the template of the
 * route that matched: bounded however many URLs clients send. A route's
 * series is made the first time it answers and kept under the route itself,
 * so a request builds no string to find it.
 */

const seriesOf = madeOnce(
  new WeakMap<HttpRouter.Route<unknown, unknown>, HttpRouteSeries>(),
  (route) => httpRouteSeries(route.method, route.path)
)
// Node's parser takes only the methods it knows: a handful of series at most.
const unmatchedOf = madeOnce(new Map<string, HttpRouteSeries>(), (method) => httpRouteSeries(method, UNMATCHED_ROUTE))

/** A request being measured: its method and when it started. */
export interface Measured {
  readonly method: string
  readonly start: number
}

export const startMeasuring = (method: string): Measured => ({ method, start: seconds() })

/**
 * Counts the answer under its route and status, with the time it took. The
 * router put the route that matched in the request fiber's context, where it
 * stays until the request ends (the request middleware adds to that context
 * rather than restoring it: Server.ts); a request no route matched has none.
 * Read here, as the answer is made, it costs the request no step of its own.
 */
export const recordAnswer = (measured: Measured, status: number): void => {
  const fiber = Fiber.getCurrent()
  const matched = fiber === undefined ? undefined : Context.getOrUndefined(fiber.context, HttpRouter.RouteContext)
  const series = matched === undefined ? unmatchedOf(measured.method) : seriesOf(matched.route)
  series.record(status, seconds() - measured.start)
}
