// A worker thread of ops/bench/gateway.ts: opens its share of the gateway sessions with
// Node's own WebSocket and notes when each marked MESSAGE_CREATE arrives. The sessions are
// split over threads so that the client reading 2,000 frames a second is not what is
// measured. Times are epoch milliseconds (performance.timeOrigin + performance.now()),
// the same clock in every thread.
import { setTimeout as sleep } from "node:timers/promises"
import { parentPort, workerData } from "node:worker_threads"

export interface ClientsData {
  readonly url: string
  /** One token per session to open. */
  readonly tokens: ReadonlyArray<string>
  readonly intents: number
  /** Sessions connecting at once: the next opens when one of them has its guild. */
  readonly connectAtOnce: number
  /**
   * A connecting storm instead (as after a restart): every session opens at its own moment,
   * evenly over these seconds, whether or not the earlier ones have their guild yet.
   */
  readonly stormSeconds?: number
}

/** Worker → bench: all sessions got GUILD_CREATE, or one failed; then the arrivals. */
export type ClientsReport =
  | { readonly kind: "ready" }
  | { readonly kind: "failed"; readonly reason: string }
  | { readonly kind: "arrivals"; readonly arrivals: ReadonlyArray<readonly [number, ReadonlyArray<number>]> }

/** Bench → worker: stop and report the arrivals. */
export interface ClientsCommand {
  readonly kind: "finish"
}

const isData = (v: unknown): v is ClientsData =>
  typeof v === "object" && v !== null && "url" in v && "tokens" in v && Array.isArray(v.tokens)

const now = () => performance.timeOrigin + performance.now()
const MARK = "bench#"

const run = async (port: NonNullable<typeof parentPort>, data: ClientsData) => {
  const report = (r: ClientsReport) => port.postMessage(r)
  const sockets: Array<WebSocket> = []
  const arrivals = new Map<number, Array<number>>()
  const open = (token: string) =>
    new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(data.url)
      sockets.push(socket)
      let ready = false
      socket.addEventListener("message", (event) => {
        const at = now()
        const text = typeof event.data === "string" ? event.data : ""
        if (text.startsWith('{"op":0,"t":"MESSAGE_CREATE"')) {
          const mark = text.indexOf(MARK)
          if (mark < 0) return
          const n = Number.parseInt(text.slice(mark + MARK.length, mark + MARK.length + 6), 10)
          let times = arrivals.get(n)
          if (times === undefined) arrivals.set(n, times = [])
          times.push(at)
        } else if (!ready && text.startsWith('{"op":0,"t":"GUILD_CREATE"')) {
          ready = true
          resolve()
        } else if (text.startsWith('{"op":10')) {
          socket.send(JSON.stringify({
            op: 2,
            d: { token, properties: { os: "linux", browser: "bench", device: "bench" }, intents: data.intents }
          }))
        }
      })
      socket.addEventListener("error", () => reject(new Error("a session failed to connect")))
      socket.addEventListener("close", (e) => {
        if (!ready) reject(new Error(`closed ${e.code} ${e.reason}`))
      })
    })
  // Well within the server's 41.25 s interval.
  const heartbeat = setInterval(() => {
    for (const s of sockets) if (s.readyState === WebSocket.OPEN) s.send('{"op":1,"d":null}')
  }, 30_000)
  port.on("message", (command: ClientsCommand) => {
    if (command.kind !== "finish") return
    clearInterval(heartbeat)
    report({ kind: "arrivals", arrivals: [...arrivals] })
    for (const s of sockets) s.close(1000)
    port.close()
  })
  try {
    const storm = data.stormSeconds
    if (storm === undefined) {
      for (let i = 0; i < data.tokens.length; i += data.connectAtOnce) {
        await Promise.all(data.tokens.slice(i, i + data.connectAtOnce).map(open))
      }
    } else {
      const started = now()
      const gap = (storm * 1000) / Math.max(1, data.tokens.length)
      await Promise.all(data.tokens.map(async (token, i) => {
        await sleep(Math.max(0, started + i * gap - now()))
        return open(token)
      }))
    }
    report({ kind: "ready" })
  } catch (error) {
    report({ kind: "failed", reason: error instanceof Error ? error.message : String(error) })
  }
}

if (parentPort !== null && isData(workerData)) await run(parentPort, workerData)
