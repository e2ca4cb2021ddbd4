import { Context, Effect, type FileSystem, type Path, Scope } from "effect"
import { HttpRouter, HttpServerRequest, type HttpServerResponse, Multipart, type UrlParams } from "effect/http"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import type { unhandled } from "effect/Types"
import { AUDIT_REASON_HEADER, decodeAuditReason } from "../guilds/AuditReason.ts"
import { isStorableText, UNSTORABLE_TEXT } from "../model/Common.ts"
import type { FieldError } from "../model/Errors.ts"
import { invalidFormBody } from "./ErrorResponses.ts"

/**
 * Every string a request brings is held to isStorableText here, once, before
 * any handler sees it: a new endpoint cannot forget it, and no actor is handed
 * a write that can never commit.
 */
const fieldError = (path: string): FieldError => ({ path, code: "INVALID_FORMAT", message: UNSTORABLE_TEXT })

/** A key as a path may name it: what cannot be stored cannot be echoed either. */
const printable = (key: string) => key.replaceAll("\u0000", "\ufffd").toWellFormed()

const join = (path: string, key: string | number) => (path === "" ? String(key) : `${path}.${key}`)

/**
 * The path (`a.b.0`, conventions.md's field path) of the first string or
 * object key in a decoded JSON value that is not storable text.
 */
export const unstorablePath = (value: unknown, path = ""): string | undefined => {
  if (typeof value === "string") return isStorableText(value) ? undefined : path === "" ? "root" : path
  if (typeof value !== "object" || value === null) return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorablePath(value[i], join(path, i))
      if (found !== undefined) return found
    }
    return undefined
  }
  for (const [key, item] of Object.entries(value)) {
    if (!isStorableText(key)) return join(path, printable(key))
    const found = unstorablePath(item, join(path, key))
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * JSON text can only carry U+0000 or a surrogate as a `\u` escape: a raw NUL
 * is refused by the parser, and UTF-8 decoding never yields a lone surrogate.
 * So text without such an escape is decided by this one scan; text with one
 * (or a lookalike such as `\\u0000`) is parsed and walked to be sure.
 */
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89abcdefABCDEF])/

/** The field errors of JSON text with unstorable strings; empty when it has none or is not JSON (its decoder says so). */
export const unstorableInJson = (text: string): ReadonlyArray<FieldError> => {
  if (!SUSPECT_ESCAPE.test(text)) return []
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return []
  }
  const path = unstorablePath(value)
  return path === undefined ? [] : [fieldError(path)]
}

const unstorableInRecord = (record: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>) => {
  for (const [key, value] of Object.entries(record)) {
    if (!isStorableText(key)) return [fieldError(printable(key))]
    if (value === undefined) continue
    const values = typeof value === "string" ? [value] : value
    if (!values.every(isStorableText)) return [fieldError(key)]
  }
  return []
}

const unstorableInForm = (form: UrlParams.UrlParams): ReadonlyArray<FieldError> => {
  for (const [key, value] of form.params) {
    if (!isStorableText(key)) return [fieldError(printable(key))]
    // A parsed body holds plain strings; Redacted values are only ever built by our own code.
    if (typeof value === "string" && !isStorableText(value)) return [fieldError(key)]
  }
  return []
}

/** The one header whose text is kept: the audit-log reason, URL-encoded by clients. */
const unstorableInHeaders = (request: HttpServerRequest.HttpServerRequest): ReadonlyArray<FieldError> => {
  const raw = request.headers[AUDIT_REASON_HEADER]
  if (raw === undefined || !raw.includes("%")) return []
  const reason = decodeAuditReason(raw)
  return reason === null || isStorableText(reason)
    ? []
    : [{ path: AUDIT_REASON_HEADER, code: "INVALID_AUDIT_LOG_REASON", message: UNSTORABLE_TEXT }]
}

const bodyKind = (request: HttpServerRequest.HttpServerRequest): "json" | "form" | "multipart" | undefined => {
  if (request.method === "GET" || request.method === "HEAD") return undefined
  // As the API's payload decoding does, a body without a content type is read as JSON.
  const type = request.headers["content-type"]?.toLowerCase()
  if (type === undefined || type.startsWith("application/json")) return "json"
  if (type.startsWith("application/x-www-form-urlencoded")) return "form"
  if (type.startsWith("multipart/form-data")) return "multipart"
  return undefined
}

const utf8 = new TextDecoder()

/**
 * Field errors of the request's body. A body that cannot be read is left to
 * the payload decoding, which answers for it (413, 400) after authentication,
 * as before. The body is cached, so it is read once either way; JSON is
 * searched for a `\u` as bytes, so the common body is not decoded twice.
 */
const unstorableInBody = (request: HttpServerRequest.HttpServerRequest, kind: "json" | "form") =>
  kind === "json"
    ? Effect.match(request.arrayBuffer, {
      onFailure: (): ReadonlyArray<FieldError> => [],
      onSuccess: (bytes) => (Buffer.from(bytes).indexOf("\\u") === -1 ? [] : unstorableInJson(utf8.decode(bytes)))
    })
    : Effect.match(request.urlParamsBody, { onFailure: (): ReadonlyArray<FieldError> => [], onSuccess: unstorableInForm })

const unstorableInParts = (parts: Multipart.Persisted): ReadonlyArray<FieldError> => {
  for (const [key, value] of Object.entries(parts)) {
    if (!isStorableText(key)) return [fieldError(printable(key))]
    const texts = typeof value === "string" ? [value] : value.map((item) => (typeof item === "string" ? item : item.name))
    if (!texts.every(isStorableText)) return [fieldError(key)]
  }
  return []
}

/**
 * The routes whose multipart body the API reads whole before their handler
 * runs (`HttpApiSchema.asMultipart`), by method and path, with the parser
 * limits they declare. Their parts are read here (the request keeps what was
 * read, so the API's decoding reads nothing again) and checked like any other
 * body. A streamed multipart body (a message create) is read by its handler as
 * it arrives; its JSON part, `payload_json`, goes through unstorableInJson.
 */
const bufferedMultipartRoutes = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>) => {
  const routes = new Map<string, Multipart.withLimits.Options | undefined>()
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => {
      const encoding = endpoint.payload.get("multipart/form-data")?.encoding
      if (encoding?._tag === "Multipart" && encoding.mode === "buffered") routes.set(`${endpoint.method} ${endpoint.path}`, encoding.limits)
    }
  })
  return routes
}

const refuse = (errors: ReadonlyArray<FieldError>) => Effect.succeed(invalidFormBody(errors))

/** Path parameters and query values: only a `%` escape can carry U+0000 or a lone surrogate into a URL. */
const unstorableInUrl = (
  context: Context.Context<HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext | HttpServerRequest.ParsedSearchParams>
) => {
  const inParams = unstorableInRecord(Context.get(context, HttpRouter.RouteContext).params)
  return inParams.length > 0 ? inParams : unstorableInRecord(Context.get(context, HttpServerRequest.ParsedSearchParams))
}

/**
 * Refuses, with 400 `INVALID_FORM_BODY` naming the field, every request to a
 * route of `api` whose path parameters, query string, audit-log reason or body
 * carry text that cannot be stored. Provided to the API's routes as a whole
 * (Server.ts), so it sees each route's named path parameters. It runs on every
 * request: one with no `%` in its URL and no body is passed on after two
 * string searches.
 */
export const refuseUnstorableInput = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>) => {
  const buffered = bufferedMultipartRoutes(api)
  return HttpRouter.middleware()(Effect.map(Effect.context<FileSystem.FileSystem | Path.Path>(), (platform) =>
    (httpEffect): Effect.Effect<
      HttpServerResponse.HttpServerResponse,
      unhandled,
      HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext | HttpServerRequest.ParsedSearchParams
    > =>
      Effect.contextWith((context: Context.Context<
        HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext | HttpServerRequest.ParsedSearchParams
      >) => {
        const request = Context.get(context, HttpServerRequest.HttpServerRequest)
        const inUrl = request.url.includes("%") ? unstorableInUrl(context) : []
        if (inUrl.length > 0) return refuse(inUrl)
        const inHeaders = unstorableInHeaders(request)
        if (inHeaders.length > 0) return refuse(inHeaders)
        const kind = bodyKind(request)
        if (kind === undefined) return httpEffect
        if (kind !== "multipart") {
          return Effect.flatMap(unstorableInBody(request, kind), (errors) => (errors.length > 0 ? refuse(errors) : httpEffect))
        }
        const route = Context.get(context, HttpRouter.RouteContext).route
        const key = `${route.method} ${route.path}`
        if (!buffered.has(key)) return httpEffect
        const limits = buffered.get(key)
        // The parts' files live as long as this scope: until the handler has answered.
        return Effect.scopedWith((scope) => {
          const services = Context.add(limits === undefined ? platform : Context.merge(platform, Multipart.limitsServices(limits)), Scope.Scope, scope)
          return Effect.flatMap(
            Effect.match(Effect.provideContext(request.multipart, services), {
              onFailure: (): ReadonlyArray<FieldError> => [],
              onSuccess: unstorableInParts
            }),
            (errors) => (errors.length > 0 ? refuse(errors) : httpEffect)
          )
        })
      })
  )).layer
}
