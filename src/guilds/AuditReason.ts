import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"

const MAX_REASON = 512

/**
 * The request's `X-Audit-Log-Reason`, for the audit entries of its write:
 * clients URL-encode it (headers are not unicode); one that does not decode is
 * kept as sent. Blank is no reason.
 */
export const auditReason: Effect.Effect<string | null, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => {
    const raw = request.headers["x-audit-log-reason"]
    if (raw === undefined || raw.trim() === "") return null
    let reason = raw
    try {
      reason = decodeURIComponent(raw)
    } catch {
      // Not URL-encoded after all: the header as sent.
    }
    return [...reason].slice(0, MAX_REASON).join("")
  }
)
