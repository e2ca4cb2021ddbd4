import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"

const MAX_REASON = 512

export const AUDIT_REASON_HEADER = "x-audit-log-reason"

/**
 * An `X-Audit-Log-Reason` as its text: clients URL-encode it (headers are not
 * unicode); one that does not decode is kept as sent. Blank is no reason.
 */
export const decodeAuditReason = (raw: string | undefined): string | null => {
  if (raw === undefined || raw.trim() === "") return null
  let reason = raw
  try {
    reason = decodeURIComponent(raw)
  } catch {
    // Not URL-encoded after all: the header as sent.
  }
  return [...reason].slice(0, MAX_REASON).join("")
}

/** The request's reason, for the audit entries of its write. */
export const auditReason: Effect.Effect<string | null, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => decodeAuditReason(request.headers[AUDIT_REASON_HEADER])
)
