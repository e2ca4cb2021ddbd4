import { DecodeError, type Decoder, string, object, optional } from "./decode.ts"

/** A refusal or failure as the page shows it: the API's error object, or what went wrong on the way. */
export interface Failure {
  readonly status: number
  readonly code: string
  readonly message: string
}

export type Result<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly failure: Failure }

const ErrorBody = object({ code: string, message: string })

const failureOf = (status: number, body: unknown): Failure => {
  try {
    const { code, message } = ErrorBody(body, "error")
    return { status, code, message }
  } catch {
    return { status, code: `HTTP_${status}`, message: `The server answered ${status}` }
  }
}

/** One JSON call to this origin; never throws. */
export const callJson = async <A>(
  method: "GET" | "POST",
  path: string,
  decoder: Decoder<A>,
  options: { readonly authorization?: string; readonly body?: unknown } = {}
): Promise<Result<A>> => {
  const headers: Record<string, string> = {}
  if (options.authorization !== undefined) headers.authorization = options.authorization
  if (options.body !== undefined) headers["content-type"] = "application/json"
  let response: Response
  try {
    response = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      credentials: "omit",
      cache: "no-store"
    })
  } catch (error) {
    return { ok: false, failure: { status: 0, code: "NETWORK", message: `The server could not be reached (${String(error)})` } }
  }
  const text = await response.text()
  let body: unknown
  try {
    body = text === "" ? undefined : JSON.parse(text)
  } catch {
    return { ok: false, failure: { status: response.status, code: "NOT_JSON", message: `The answer of ${path} is not JSON` } }
  }
  if (!response.ok) return { ok: false, failure: failureOf(response.status, body) }
  try {
    return { ok: true, value: decoder(body, path) }
  } catch (error) {
    const message = error instanceof DecodeError ? error.message : String(error)
    return { ok: false, failure: { status: response.status, code: "UNEXPECTED_ANSWER", message } }
  }
}

/**
 * The admin API with one operator's credential, the whole value of the
 * `Authorization` header (`Admin <key>` or a user's token). It lives in this
 * object only: never in a cookie or the browser's storage, so closing or
 * reloading the page signs out.
 */
export class AdminClient {
  readonly #authorization: string
  constructor(authorization: string) {
    this.#authorization = authorization
  }

  get<A>(path: `/admin/${string}`, decoder: Decoder<A>): Promise<Result<A>> {
    return callJson("GET", path, decoder, { authorization: this.#authorization })
  }

  post<A>(path: `/admin/${string}`, body: unknown, decoder: Decoder<A>): Promise<Result<A>> {
    return callJson("POST", path, decoder, { authorization: this.#authorization, body })
  }
}

/** `POST /auth/login`: a token, or the MFA step still to take. */
export const LoginAnswer = object({
  token: optional(string),
  ticket: optional(string)
})
