import { Cause, Effect, Schema } from "effect"
import { HttpServerError, HttpServerRequest, HttpServerResponse, Multipart } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { isPlatformError } from "effect/PlatformError"
import * as SchemaIssue from "effect/SchemaIssue"
import type { FieldError } from "../model/Errors.ts"

/**
 * The one place where whatever escaped a handler becomes the wire's error
 * object. HttpApi's own answers (an empty 400 for a decode failure, 415 text,
 * an empty 404) never reach a client in their default form.
 */
const errorBody = (status: number, code: string, message: string, extra?: Record<string, unknown>) =>
  HttpServerResponse.jsonUnsafe({ code, message, ...extra }, { status })

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()
const CODED = /^([A-Z][A-Z0-9_]+): (.*)$/

/** Schema issues as field errors; a check message `CODE: text` carries the validation code. */
export const fieldErrors = (error: Schema.SchemaError, kind: string): Array<FieldError> =>
  formatter(error.issue).issues.map((issue) => {
    const path = (issue.path ?? []).map((p) => String(typeof p === "object" && p !== null && "key" in p ? p.key : p))
    const where = path.length === 0 ? (kind === "Payload" ? "root" : kind.toLowerCase()) : path.join(".")
    const coded = CODED.exec(issue.message)
    return coded ? { path: where, code: coded[1], message: coded[2] ?? "" } : { path: where, message: issue.message }
  })

export const invalidFormBody = (errors: ReadonlyArray<FieldError>) =>
  errorBody(400, "INVALID_FORM_BODY", "Invalid form body", { errors })

/** A request from a banned address (src/admin/bans), refused before routing. */
export const ipBanned = () => errorBody(403, "IP_BANNED", "Your IP address has been banned")

export const notFound = () => errorBody(404, "GENERAL_ERROR", "404: Not Found")

const unparsableMultipart = () =>
  invalidFormBody([{ path: "root", code: "FAILED_TO_PARSE_MULTIPART_FORM_DATA", message: "The multipart body could not be parsed" }])

/**
 * A multipart body the API's own decoding could not read (it dies with the
 * parser's error): too large is 413; malformed, or naming a file the parser
 * cannot write (a U+0000 in its name), is the client's 400. A store that
 * failed otherwise stays a 500.
 */
const fromMultipartError = (error: Multipart.MultipartError) => {
  const cause = error.reason.cause
  switch (error.reason._tag) {
    case "FileTooLarge":
    case "FieldTooLarge":
    case "BodyTooLarge":
    case "TooManyParts":
      return errorBody(413, "PAYLOAD_TOO_LARGE", "Request body is too large")
    case "Parse":
      return unparsableMultipart()
    case "InternalError":
      return isPlatformError(cause) && cause.reason._tag === "BadArgument" ? unparsableMultipart() : undefined
  }
}

const fromDefect = (defect: unknown): HttpServerResponse.HttpServerResponse | undefined => {
  if (HttpApiError.HttpApiSchemaError.is(defect) && defect.kind !== "Body" && defect.kind !== "ResponseHeaders") {
    return invalidFormBody(fieldErrors(defect.cause, defect.kind))
  }
  if (Multipart.isMultipartError(defect)) return fromMultipartError(defect)
  if (HttpApiError.HttpApiPayloadTooLarge.is(defect)) return errorBody(413, "PAYLOAD_TOO_LARGE", "Request body is too large")
  const reason = HttpServerError.isHttpServerError(defect) ? defect.reason : defect
  if (reason instanceof HttpServerError.RequestParseError) {
    return reason.reason === "BodyTooLarge"
      ? errorBody(413, "PAYLOAD_TOO_LARGE", "Request body is too large")
      : invalidFormBody([{ path: "root", message: "The body could not be read" }])
  }
  if (reason instanceof HttpServerError.RouteNotFound) return notFound()
  return undefined
}

export const toErrorResponse = (cause: Cause.Cause<unknown>, requestId: string) =>
  Effect.gen(function*() {
    for (const reason of cause.reasons) {
      const value = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
      const mapped = fromDefect(value)
      if (mapped) return mapped
    }
    if (Cause.hasInterruptsOnly(cause)) return errorBody(503, "SERVICE_UNAVAILABLE", "The request was interrupted")
    yield* Effect.logError("request failed", cause).pipe(Effect.annotateLogs("requestId", requestId))
    return errorBody(500, "GENERAL_ERROR", "Internal server error")
  })

/** HttpApi answers an unsupported content type with a bare 415 text body. */
export const unsupportedMediaType = (request: HttpServerRequest.HttpServerRequest) =>
  errorBody(415, "UNSUPPORTED_MEDIA_TYPE", `Unsupported content type: ${request.headers["content-type"] ?? "none"}`)
