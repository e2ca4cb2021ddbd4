import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { connect as tcpConnect, type Socket } from "node:net"
import { guildWithChannel } from "../messages/Fixtures.ts"
import { TestApi } from "../support/Api.ts"

const LIMIT = 64 * 1024
/** Enough to fill the kernel's socket buffers on both sides, and the limit after them. */
const MESSAGES = 2500
const CONTENT = "x".repeat(2000)

/** A client frame: text, masked as clients must. */
const clientFrame = (text: string): Buffer => {
  const payload = Buffer.from(text)
  const mask = randomBytes(4)
  const head = payload.length < 126
    ? Buffer.from([0x81, 0x80 | payload.length])
    : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff])
  return Buffer.concat([head, mask, Buffer.from(payload.map((b, i) => b ^ (mask[i % 4] ?? 0)))])
}

/** The server's frames in `bytes` (unmasked), as opcode and payload, up to the last whole one. */
const serverFrames = (bytes: Buffer) => {
  const frames: Array<{ readonly op: number; readonly payload: Buffer }> = []
  let at = 0
  while (at + 2 <= bytes.length) {
    let length = (bytes[at + 1] ?? 0) & 0x7f
    let start = at + 2
    if (length === 126) {
      length = bytes.readUInt16BE(at + 2)
      start = at + 4
    } else if (length === 127) {
      length = Number(bytes.readBigUInt64BE(at + 2))
      start = at + 10
    }
    if (start + length > bytes.length) break
    frames.push({ op: (bytes[at] ?? 0) & 0x0f, payload: bytes.subarray(start, start + length) })
    at = start + length
  }
  return frames
}

/** A WebSocket client by hand over TCP, so that it can stop reading (a browser's socket always reads). */
const rawClient = (baseUrl: string, token: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly socket: Socket; readonly received: Array<Buffer> }>((resume) => {
      const url = new URL(baseUrl)
      const socket = tcpConnect(Number(url.port), url.hostname)
      const received: Array<Buffer> = []
      socket.on("connect", () =>
        socket.write(
          `GET /gateway/socket?v=1&encoding=json HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`
        ))
      let upgraded = false
      socket.on("data", (chunk: Buffer) => {
        if (upgraded) return void received.push(chunk)
        const text = chunk.toString("latin1")
        const end = text.indexOf("\r\n\r\n")
        if (end < 0) return
        upgraded = true
        received.push(chunk.subarray(end + 4))
        socket.write(clientFrame(JSON.stringify({ op: 2, d: { token, properties: {}, intents: 1 << 9 } })))
        resume(Effect.succeed({ socket, received }))
      })
    }),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )

layer(TestApi.layerWith({ GATEWAY_OUTBOUND_LIMIT_BYTES: String(LIMIT) }), { timeout: 180_000, excludeTestServices: true })(
  "a slow gateway client",
  (it) => {
    it.effect("a client that stops reading is closed (4000) once its backlog passes the limit, instead of growing memory", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const { owner, channelId } = yield* guildWithChannel
        const { socket, received } = yield* rawClient(api.baseUrl, owner.token)
        // READY and GUILD_CREATE first, then the client stops reading.
        yield* Effect.sleep("500 millis")
        socket.pause()

        let posted = 0
        while (posted < MESSAGES) {
          const batch = Array.from({ length: 50 }, () =>
            api.request("POST", `/channels/${channelId}/messages`, { token: owner.token, body: { content: CONTENT } }))
          const replies = yield* Effect.all(batch, { concurrency: 25 })
          for (const reply of replies) assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
          posted += replies.length
        }
        socket.resume()
        yield* Effect.sleep("500 millis")
        const frames = serverFrames(Buffer.concat(received))
        const close = frames.find((f) => f.op === 8)
        assert.isDefined(close, `no close frame after ${posted} messages (${frames.length} frames)`)
        assert.strictEqual(close?.payload.readUInt16BE(0), 4000)
        expect(close?.payload.subarray(2).toString()).toBe("Client too slow")
        const delivered = frames.filter((f) => f.op === 1 && f.payload.toString().includes('"t":"MESSAGE_CREATE"')).length
        expect(delivered).toBeLessThan(posted)
      }))
  }
)
