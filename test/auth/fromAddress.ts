import { Effect } from "effect"
import { request } from "node:http"
import type { Reply } from "../support/Api.ts"

/**
 * A request to the API from another loopback address (Linux routes all of
 * 127/8 to lo), so that the server sees a client IP that no account knows.
 */
export const requestFrom = (
  baseUrl: string,
  localAddress: string,
  method: string,
  path: string,
  options: { readonly body?: unknown; readonly token?: string } = {}
): Effect.Effect<Reply> =>
  Effect.promise(() =>
    new Promise<Reply>((resolve, reject) => {
      const url = new URL(path, baseUrl)
      const body = options.body === undefined ? undefined : JSON.stringify(options.body)
      const headers: Record<string, string> = {}
      if (body !== undefined) headers["content-type"] = "application/json"
      if (options.token !== undefined) headers.authorization = options.token
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, localAddress },
        (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (chunk: Buffer) => chunks.push(chunk))
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8")
            let parsed: unknown = text
            try {
              parsed = text === "" ? undefined : JSON.parse(text)
            } catch {
              // not JSON: the raw text is what the test sees
            }
            const replyHeaders = new Headers()
            for (const [name, value] of Object.entries(res.headers)) {
              if (typeof value === "string") replyHeaders.set(name, value)
              else if (Array.isArray(value)) replyHeaders.set(name, value.join(", "))
            }
            resolve({ status: res.statusCode ?? 0, headers: replyHeaders, body: parsed })
          })
          res.on("error", reject)
        }
      )
      req.on("error", reject)
      req.end(body)
    })
  )
