// Gateway sessions under the load: one per guild (its owner's), each a careful client that
// heartbeats, and when its connection drops RESUMEs on the next API process, or IDENTIFYs again
// when told its session is gone. It notes every load message it receives, and the spans of time
// in which it was told it may have missed events, so that a message the guild committed and
// the client never got, without being told, can be counted.
import { setTimeout as sleep } from "node:timers/promises"
import { isLoadMarker, type LoadGuild } from "./load.ts"

/** GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT. */
const INTENTS = 1 | (1 << 9) | (1 << 15)

export interface SessionRecord {
  readonly guild: number
  /** Load markers received, with when. */
  readonly received: Map<string, number>
  /** [from, to]: the client was told (invalid session) that events of this span may be lost. */
  readonly excused: Array<readonly [number, number]>
  resumes: number
  reidentifies: number
  /** Times the server asked it to reconnect (op 7). */
  reconnectsAsked: number
  /** The index of the API process its open connection goes to; undefined between connections. */
  api: number | undefined
  /** Connections opened (or tried), and when the last frame of any came. */
  connects: number
  lastFrameAt: number
}

export interface Sessions {
  readonly records: ReadonlyArray<SessionRecord>
  /** All sessions are READY. */
  readonly ready: Promise<void>
  readonly close: () => Promise<void>
}

interface Frame {
  readonly op: number
  readonly d?: unknown
  readonly s?: number | null
  readonly t?: string | null
}
const isFrame = (v: unknown): v is Frame => typeof v === "object" && v !== null && "op" in v && typeof v.op === "number"
const field = (v: unknown, key: string): unknown => typeof v === "object" && v !== null ? Reflect.get(v, key) : undefined

const socketUrl = (base: string) => `${base.replace(/^http/, "ws")}/gateway/socket?v=1&encoding=json`

export const openSessions = (apis: ReadonlyArray<string>, guilds: ReadonlyArray<LoadGuild>): Sessions => {
  let closing = false
  const sockets = new Set<WebSocket>()
  const records: Array<SessionRecord> = []
  const readies: Array<Promise<void>> = []
  guilds.forEach((guild, index) => {
    const record: SessionRecord = {
      guild: index,
      received: new Map(),
      excused: [],
      resumes: 0,
      reidentifies: 0,
      reconnectsAsked: 0,
      api: undefined,
      connects: 0,
      lastFrameAt: 0
    }
    records.push(record)
    let api = index
    let sessionId: string | undefined
    let seq: number | null = null
    /** When the session last had a live, up-to-date connection: the start of what a failed RESUME excuses. */
    let lastAlive = Date.now()
    let firstReady: () => void = () => undefined
    readies.push(new Promise((resolve) => (firstReady = resolve)))
    const connect = () => {
      if (closing) return
      const target = api % apis.length
      const socket = new WebSocket(socketUrl(apis[target] ?? ""))
      record.connects++
      sockets.add(socket)
      socket.addEventListener("open", () => (record.api = target))
      let heartbeat: ReturnType<typeof setInterval> | undefined
      let resuming = false
      socket.addEventListener("message", (event) => {
        if (typeof event.data !== "string") return
        const frame: unknown = JSON.parse(event.data)
        if (!isFrame(frame)) return
        record.lastFrameAt = Date.now()
        if (typeof frame.s === "number") seq = frame.s
        if (frame.op === 10) {
          const interval = Number(field(frame.d, "heartbeat_interval"))
          heartbeat = setInterval(() => socket.send(JSON.stringify({ op: 1, d: seq })), interval)
          if (sessionId !== undefined) {
            resuming = true
            socket.send(JSON.stringify({ op: 6, d: { token: guild.token, session_id: sessionId, seq } }))
          } else {
            socket.send(JSON.stringify({
              op: 2,
              d: { token: guild.token, intents: INTENTS, properties: { os: "linux", browser: "faults", device: "faults" } }
            }))
          }
        } else if (frame.op === 9) {
          // The session is gone: what happened since the connection was last alive may be lost, and the client knows it.
          sessionId = undefined
          seq = null
          record.reidentifies++
          const from = lastAlive
          socket.send(JSON.stringify({
            op: 2,
            d: { token: guild.token, intents: INTENTS, properties: { os: "linux", browser: "faults", device: "faults" } }
          }))
          record.excused.push([from, Number.POSITIVE_INFINITY])
        } else if (frame.op === 7) {
          record.reconnectsAsked++
          socket.close(4000, "reconnect asked")
        } else if (frame.op === 0) {
          lastAlive = Date.now()
          if (frame.t === "READY") {
            sessionId = String(field(frame.d, "session_id"))
            const open = record.excused.at(-1)
            if (open !== undefined && open[1] === Number.POSITIVE_INFINITY) record.excused[record.excused.length - 1] = [open[0], Date.now()]
            firstReady()
          } else if (frame.t === "RESUMED") {
            if (resuming) record.resumes++
          } else if (frame.t === "MESSAGE_CREATE") {
            const content = field(frame.d, "content")
            if (typeof content === "string" && isLoadMarker(content)) record.received.set(content, Date.now())
          }
        }
      })
      socket.addEventListener("close", () => {
        sockets.delete(socket)
        record.api = undefined
        if (heartbeat !== undefined) clearInterval(heartbeat)
        if (closing) return
        api++
        void sleep(250).then(connect)
      })
      socket.addEventListener("error", () => undefined)
    }
    connect()
  })
  return {
    records,
    ready: Promise.all(readies).then(() => undefined),
    close: async () => {
      closing = true
      for (const socket of sockets) socket.close(1000)
      await sleep(100)
    }
  }
}

/**
 * Acknowledged load messages a session never received although it was never told it might
 * have missed them: events silently lost, each described (when it was acknowledged, what its
 * session did) so that a failing run says where to look. `acknowledged` is marker → (guild,
 * when acknowledged); times are given from `since`.
 */
export const silentlyLost = (
  sessions: Sessions,
  acknowledged: ReadonlyMap<string, { readonly guild: number; readonly at: number }>,
  since: number
): ReadonlyArray<string> => {
  const lost: Array<string> = []
  const at = (t: number) => `${((t - since) / 1000).toFixed(1)} s`
  for (const [marker, ack] of acknowledged) {
    const record = sessions.records[ack.guild]
    if (record === undefined || record.received.has(marker)) continue
    if (record.excused.some(([from, to]) => ack.at >= from - 10_000 && ack.at <= to)) continue
    const newest = record.received.size === 0 ? "none" : `newest at ${at(Math.max(...record.received.values()))}`
    lost.push(
      `event lost: guild ${ack.guild}'s ${marker} acknowledged at ${at(ack.at)}; its session received ${record.received.size} ` +
        `(${newest}), ${record.connects} connections, ${record.resumes} resumes, ${record.reidentifies} identifies again, ` +
        `${record.reconnectsAsked} reconnects asked, last frame at ${at(record.lastFrameAt)}, ` +
        `excused ${record.excused.map(([f, t]) => `${at(f)}–${Number.isFinite(t) ? at(t) : "open"}`).join(", ") || "never"}`
    )
  }
  return lost
}
