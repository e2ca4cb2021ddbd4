import type { Effect } from "effect"
import { HttpMiddleware, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { SUDO_HEADER } from "../auth/Sudo.ts"
import type { Settings } from "../platform/Config.ts"
import { RATE_LIMIT_HEADERS } from "../ratelimit/RateLimit.ts"

/** The request headers clients send besides the CORS-safelisted ones. */
const REQUEST_HEADERS = ["authorization", "content-type", "x-audit-log-reason", SUDO_HEADER]

/** The answer headers a page's script may read: rate limits, the sudo token, the request id for support. */
const EXPOSED_HEADERS = [...RATE_LIMIT_HEADERS, SUDO_HEADER, "x-request-id"]

/** Seconds a browser may reuse a preflight's answer (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE = 600

/**
 * Whether a browser page of `origin` may call the API or open the gateway
 * (CORS_ORIGINS; `*` allows every origin).
 */
export const originAllowed = (origins: ReadonlyArray<string>): (origin: string) => boolean => {
  if (origins.includes("*")) return () => true
  const allowed = new Set(origins)
  return (origin) => allowed.has(origin)
}

/**
 * The HTTP stack's CORS middleware for the allowed origins: it answers every
 * preflight (`OPTIONS`) itself, before routing, rate limits and authentication,
 * and adds the allow and expose headers to every other answer, errors included.
 * A request without `Origin` (no browser page, or a same-origin GET) is passed
 * on untouched: the per-request cost is one header lookup.
 */
export const corsFor = (settings: Pick<Settings, "corsOrigins">) => {
  const cors = HttpMiddleware.cors({
    allowedOrigins: originAllowed(settings.corsOrigins),
    allowedMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowedHeaders: REQUEST_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE
  })
  return <E, R>(
    request: HttpServerRequest.HttpServerRequest,
    httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    request.headers.origin === undefined ? httpEffect : cors(httpEffect)
}

/**
 * Headers every answer carries: no MIME sniffing, no Referer to other sites,
 * and, when the deployment is reached over https, HSTS (a year; subdomains are
 * left alone, they may be other services of the operator's). `Vary: Origin` on
 * answers to requests without `Origin` too: a shared cache must not hand an
 * answer without the allow header to a page of an allowed origin.
 */
export const everyAnswerHeadersFor = (settings: Pick<Settings, "publicUrl">): Readonly<Record<string, string>> => ({
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  ...(new URL(settings.publicUrl).protocol === "https:" ? { "strict-transport-security": "max-age=31536000" } : {}),
  vary: "Origin"
})
