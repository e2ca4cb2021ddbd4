import { assert } from "@effect/vitest"
import { Deferred, Effect, Queue } from "effect"
import { constants, inflateSync } from "node:zlib"
import { field, TestApi } from "../support/Api.ts"

/** A gateway payload as received. */
export interface Frame {
  readonly op: number
  readonly d: unknown
  readonly s?: number | null
  readonly t?: string | null
}

export interface Closed {
  readonly code: number
  readonly reason: string
}

const isFrame = (value: unknown): value is Frame =>
  typeof value === "object" && value !== null && "op" in value && typeof value.op === "number"

/** A WebSocket client of the gateway (Node's own WebSocket), closed when the scope ends. */
export interface GatewayClient {
  readonly send: (payload: unknown) => void
  readonly sendRaw: (text: string) => void
  /** The next frame, failing the test after a few seconds. */
  readonly next: Effect.Effect<Frame>
  /** The next dispatch (op 0), skipping heartbeat ACKs. */
  readonly dispatch: Effect.Effect<Frame>
  /** Resolves once the server has closed the connection. */
  readonly closed: Effect.Effect<Closed>
  readonly close: (code: number) => void
}

/** The WebSocket URL `GET /gateway` hands out. */
export const gatewayUrl = (token: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("GET", "/gateway", { token })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return field(reply.body, "url")
  })

export const connect = (url: string) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const frames = yield* Queue.unbounded<Frame>()
      const closed = yield* Deferred.make<Closed>()
      const socket = new WebSocket(url)
      socket.binaryType = "arraybuffer"
      // zlib-stream: every binary message continues one stream; inflating all of it so far gives the text so far.
      let compressed = Buffer.alloc(0)
      let inflatedLength = 0
      socket.addEventListener("message", (event) => {
        let text: string
        if (typeof event.data === "string") {
          text = event.data
        } else if (event.data instanceof ArrayBuffer) {
          compressed = Buffer.concat([compressed, Buffer.from(event.data)])
          const all = inflateSync(compressed, { finishFlush: constants.Z_SYNC_FLUSH }).toString()
          text = all.slice(inflatedLength)
          inflatedLength = all.length
        } else {
          return
        }
        const parsed: unknown = JSON.parse(text)
        if (isFrame(parsed)) Queue.offerUnsafe(frames, parsed)
      })
      socket.addEventListener("close", (event) => {
        Deferred.doneUnsafe(closed, Effect.succeed({ code: event.code, reason: event.reason }))
      })
      yield* Effect.callback<void>((resume) => {
        socket.addEventListener("open", () => resume(Effect.void), { once: true })
        socket.addEventListener("error", () => resume(Effect.die(new Error(`cannot connect to ${url}`))), { once: true })
      })
      const next = Queue.take(frames).pipe(
        Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.die(new Error("no frame came")) })
      )
      const dispatch: Effect.Effect<Frame> = Effect.flatMap(next, (f) => (f.op === 0 ? Effect.succeed(f) : dispatch))
      return {
        socket,
        client: {
          send: (payload: unknown) => socket.send(JSON.stringify(payload)),
          sendRaw: (text: string) => socket.send(text),
          next,
          dispatch,
          closed: Deferred.await(closed).pipe(
            Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die(new Error("the server did not close")) })
          ),
          close: (code: number) => socket.close(code)
        } satisfies GatewayClient
      }
    }),
    ({ socket }) => Effect.sync(() => socket.close())
  ).pipe(Effect.map(({ client }) => client))

/** The payload of a frame as a record, failing the test otherwise. */
export const dataOf = (f: Frame): Record<string, unknown> => {
  const d = f.d
  if (typeof d !== "object" || d === null || Array.isArray(d)) throw new Error(`expected an object in ${JSON.stringify(f)}`)
  return Object.fromEntries(Object.entries(d))
}

/** Connects to `url`, checks HELLO, identifies with `token`, and answers the client and READY. */
export const identifyAt = (url: string, token: string) =>
  Effect.gen(function*() {
    const client = yield* connect(url)
    const hello = yield* client.next
    assert.strictEqual(hello.op, 10)
    client.send({ op: 2, d: { token, properties: { os: "linux", browser: "test", device: "test" } } })
    const ready = yield* client.dispatch
    assert.strictEqual(ready.t, "READY", JSON.stringify(ready))
    return { client, ready: dataOf(ready) }
  })

/** `identifyAt` where `GET /gateway` says, with `query`. */
export const identified = (token: string, query = "?v=1&encoding=json") =>
  Effect.flatMap(gatewayUrl(token), (url) => identifyAt(url + query, token))

/** The next dispatch named `type`, skipping the others. */
export const nextOfType = (client: GatewayClient, type: string): Effect.Effect<Frame> =>
  Effect.flatMap(client.dispatch, (f) => (f.t === type ? Effect.succeed(f) : nextOfType(client, type)))

/** The next dispatch of `type` whose data matches `matches`, skipping others (e.g. an earlier state still on its way). */
export const nextMatching = (client: GatewayClient, type: string, matches: (data: unknown) => boolean): Effect.Effect<Frame> =>
  Effect.flatMap(nextOfType(client, type), (f) => (matches(f.d) ? Effect.succeed(f) : nextMatching(client, type, matches)))

/** Connects where `GET /gateway` says and identifies with `d` (token included) as IDENTIFY's data; answers READY's data. */
export const identifyWith = (token: string, d: Record<string, unknown>) =>
  Effect.gen(function*() {
    const client = yield* connect(`${yield* gatewayUrl(token)}?v=1&encoding=json`)
    assert.strictEqual((yield* client.next).op, 10)
    client.send({ op: 2, d: { token, properties: { os: "linux", browser: "test", device: "test" }, ...d } })
    const ready = yield* client.dispatch
    assert.strictEqual(ready.t, "READY", JSON.stringify(ready))
    return { client, ready: dataOf(ready) }
  })
