import { Effect, Schema } from "effect"
import { GifProviderError } from "./Provider.ts"

/**
 * One HTTP exchange with a GIF provider, bounded by `timeoutMillis`: a refusal
 * (non-2xx), a network error or the timeout is `unreachable`; an answer that is
 * not JSON of `schema` is `undecodable`. Messages name the call by `what`, never
 * by its URL: the API key is in the query or the path.
 */
export const exchange = <A, I>(
  provider: string,
  request: { readonly what: string; readonly url: URL; readonly method?: "GET" | "POST"; readonly body?: unknown },
  schema: Schema.Codec<A, I>,
  timeoutMillis: number
): Effect.Effect<A, GifProviderError> =>
  Effect.gen(function*() {
    const where = `${provider} ${request.what}`
    const text = yield* Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(request.url, {
          method: request.method ?? "GET",
          headers: {
            accept: "application/json",
            "user-agent": "Guildhall",
            ...(request.body === undefined ? {} : { "content-type": "application/json" })
          },
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMillis)])
        })
        const body = await response.text()
        if (!response.ok) throw new Error(`answered ${response.status}`)
        return body
      },
      catch: (cause) =>
        new GifProviderError({
          reason: "unreachable",
          message: `${where}: ${cause instanceof Error && cause.name === "TimeoutError" ? `no answer within ${timeoutMillis} ms` : String(cause)}`
        })
    })
    return yield* Schema.decodeUnknownEffect(Schema.fromJsonString(schema))(text).pipe(
      Effect.mapError((error) => new GifProviderError({ reason: "undecodable", message: `${where}: ${error.message}` }))
    )
  })

/** `base` + `path` (the base may itself have a path, e.g. `/v2`), with `params` as the query. */
export const endpoint = (base: string, path: string, params: Record<string, string | number>): URL => {
  const url = new URL(`${base}/${path}`)
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, String(value))
  return url
}
