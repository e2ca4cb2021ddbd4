import { Context, Effect, Layer } from "effect"
import { createServer, type Server, type ServerResponse } from "node:http"
import { png } from "../media/Fixtures.ts"

/** A small MP4's head: an `ftyp` box (brand isom) and an empty `mdat`; enough for the header to be read. */
export const mp4 = Buffer.concat([
  Buffer.from([0, 0, 0, 0x18]),
  Buffer.from("ftypisom", "latin1"),
  Buffer.from([0, 0, 2, 0]),
  Buffer.from("isomiso2", "latin1"),
  Buffer.from([0, 0, 0, 0x10]),
  Buffer.from("mdat", "latin1"),
  Buffer.alloc(8, 0x11)
])

/** A small WebM's head: the EBML header with its `webm` doc type, then padding. */
export const webm = Buffer.concat([
  Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84]),
  Buffer.from("webm", "latin1"),
  Buffer.alloc(64, 0x22)
])

export const memePng = png(16, 8)

/** Bytes the oversized file would bring in all: far past any limit the tests set. */
export const OVERSIZED_BYTES = 64 * 1024 * 1024

/**
 * Media over real HTTP on two loopback addresses (127.0.0.1 and 127.0.0.2,
 * both this machine's), so a redirect from one to the other is a redirect to
 * a live server. It counts the requests each path got, and tells whether the
 * oversized file was sent to the end or cut off by the client.
 */
export class MediaServer extends Context.Service<MediaServer, {
  /** `http://127.0.0.1:port` */
  readonly url: string
  /** `http://127.0.0.2:port`: the same files */
  readonly otherUrl: string
  readonly hits: (path: string) => number
  /** How each oversized download ended: "finished", or "cut" when the client went away first. */
  readonly oversizedEndings: ReadonlyArray<string>
}>()("test/MediaServer") {
  static readonly layer = Layer.effect(
    MediaServer,
    Effect.gen(function*() {
      const hits = new Map<string, number>()
      const oversizedEndings: Array<string> = []

      const oversized = (response: ServerResponse) => {
        // No Content-Length: only the client's count can stop it.
        response.writeHead(200, { "content-type": "image/png" })
        const chunk = Buffer.alloc(64 * 1024, 0)
        let sent = 0
        let ended = false
        const finish = (how: string) => {
          if (ended) return
          ended = true
          oversizedEndings.push(how)
        }
        response.on("close", () => finish(sent >= OVERSIZED_BYTES ? "finished" : "cut"))
        const pump = () => {
          while (sent < OVERSIZED_BYTES && !response.destroyed) {
            const part = sent === 0 ? Buffer.concat([memePng.subarray(0, 33), chunk.subarray(33)]) : chunk
            sent += part.length
            if (!response.write(part)) return void response.once("drain", pump)
          }
          if (!response.destroyed) response.end()
        }
        pump()
      }

      const handler = (host: string) => (request: { url?: string | undefined }, response: ServerResponse) => {
        const url = new URL(request.url ?? "/", host)
        const key = `${url.host}${url.pathname}`
        hits.set(key, (hits.get(key) ?? 0) + 1)
        switch (url.pathname) {
          case "/meme.png":
            return response.writeHead(200, { "content-type": "image/png", "content-length": memePng.length }).end(memePng)
          case "/served-as-text.png":
            return response.writeHead(200, { "content-type": "text/plain" }).end(memePng)
          case "/clip.mp4":
            return response.writeHead(200, { "content-type": "video/mp4" }).end(mp4)
          case "/clip.webm":
            return response.writeHead(200, { "content-type": "video/webm" }).end(webm)
          case "/notes.txt":
            return response.writeHead(200, { "content-type": "text/plain" }).end("just some words, not a picture")
          case "/text-claiming-png.png":
            return response.writeHead(200, { "content-type": "image/png" }).end("<html><script>alert(1)</script></html>")
          case "/huge.png":
            return oversized(response)
          case "/declared-huge.png":
            return response.writeHead(200, { "content-type": "image/png", "content-length": String(OVERSIZED_BYTES) }).end()
          case "/redirect":
            return response.writeHead(302, { location: url.searchParams.get("to") ?? "/" }).end()
          case "/loop":
            return response.writeHead(302, { location: "/loop" }).end()
          default:
            return response.writeHead(404).end()
        }
      }

      const listen = (address: string, port: number) =>
        Effect.acquireRelease(
          Effect.promise(() =>
            new Promise<Server>((resolve) => {
              const server = createServer(handler(`http://${address}`))
              server.listen(port, address, () => resolve(server))
            })
          ),
          (server) => Effect.promise(() => new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          }))
        )
      const first = yield* listen("127.0.0.1", 0)
      const address = first.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      yield* listen("127.0.0.2", port)
      return {
        url: `http://127.0.0.1:${port}`,
        otherUrl: `http://127.0.0.2:${port}`,
        hits: (path: string) => hits.get(path) ?? 0,
        oversizedEndings
      }
    })
  )
}
