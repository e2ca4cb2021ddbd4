import { Context, Effect, Fiber } from "effect"
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

/** A request being measured: when it started, and the series of the route it matched (until then, of none). */
export interface Measured {
  readonly start: number
  series: HttpRouteSeries
}

export const startMeasuring = (method: string): Measured => ({ start: seconds(), series: unmatchedOf(method) })

/**
 * `routed` (the router's effect), noting the route that matched. The router
 * puts it in the fiber's context for the handler; it is read as the handler
 * answers, before what encloses the router restores the context it had. A
 * failure out of the router is one no route matched (a handler's errors are
 * answers by then): it stays counted as unmatched.
 */
export const noteRoute = <A, E, R>(routed: Effect.Effect<A, E, R>, measured: Measured): Effect.Effect<A, E, R> =>
  Effect.map(routed, (answer) => {
    const fiber = Fiber.getCurrent()
    const matched = fiber === undefined ? undefined : Context.getOrUndefined(fiber.context, HttpRouter.RouteContext)
    if (matched !== undefined) measured.series = seriesOf(matched.route)
    return answer
  })

/** Counts the answer under its route and status, with the time it took. */
export const recordAnswer = (measured: Measured, status: number): void =>
  measured.series.record(status, seconds() - measured.start)
