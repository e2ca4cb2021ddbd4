// The steady mixed load a fault is measured under: every guild gets writes (message creates,
// each retried with its nonce until acknowledged, as a careful client does) and reads (the
// guild, its newest messages), round-robin over the API processes, while gateway sessions
// listen for the messages. Everything a client saw is recorded for the fault's figures.
import { randomUUID } from "node:crypto"
import { setTimeout as sleep } from "node:timers/promises"
import { isJson } from "../../bench/scratch-server.ts"

/** One guild of the load: its owner's token and the channel written to. */
export interface LoadGuild {
  readonly token: string
  readonly guildId: string
  readonly channelId: string
}

/** One request as its client saw it. Status 0: the connection failed; -1: no answer within the client's timeout. */
export interface Sample {
  readonly at: number
  readonly guild: number
  readonly kind: "write" | "read"
  readonly status: number
  readonly ms: number
  readonly code?: string
}

const call = async (base: string, method: string, path: string, token: string | undefined, body: unknown, timeoutMs: number) => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (token !== undefined) headers.authorization = token
  const reply = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs)
  })
  const text = await reply.text()
  let parsed: unknown
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = text
  }
  return { status: reply.status, body: parsed }
}

/** Registers an owner per guild and creates the guilds, through `base`. */
export const createGuilds = async (base: string, count: number): Promise<ReadonlyArray<LoadGuild>> => {
  const guilds: Array<LoadGuild> = []
  for (let i = 0; i < count; i++) {
    const registered = await call(base, "POST", "/auth/register", undefined, {
      email: `f${randomUUID().slice(0, 12)}@example.com`,
      password: "correct horse battery",
      date_of_birth: "2000-01-01",
      consent: true
    }, 30_000)
    if (!isJson(registered.body)) throw new Error(`register: ${registered.status}`)
    const token = String(registered.body.token)
    const guild = await call(base, "POST", "/guilds", token, { name: `fault ${i}` }, 30_000)
    if (!isJson(guild.body) || !Array.isArray(guild.body.channels)) throw new Error(`guild: ${guild.status} ${JSON.stringify(guild.body)}`)
    const channel = guild.body.channels.find((c: unknown) => isJson(c) && c.type === 0)
    if (!isJson(channel)) throw new Error("the new guild has no text channel")
    guilds.push({ token, guildId: String(guild.body.id), channelId: String(channel.id) })
  }
  return guilds
}

export interface LoadOptions {
  /** API base URLs; a client whose API does not answer moves to the next. */
  readonly apis: ReadonlyArray<string>
  readonly guilds: ReadonlyArray<LoadGuild>
  /** Pause between one client's requests. */
  readonly pauseMs?: number
  /** A client gives up on a request after this long (ACTOR_CALL_TIMEOUT_MS and a margin). */
  readonly timeoutMs: number
  /** Called with every sample as it is taken (a long run's figures per interval). */
  readonly onSample?: (sample: Sample) => void
  /** Whether `samples` keeps every sample (default true); a long run turns it off and counts through `onSample`. */
  readonly keepSamples?: boolean
}

export interface Acknowledged {
  readonly id: string
  readonly guild: number
  readonly at: number
}

export interface Load {
  readonly samples: ReadonlyArray<Sample>
  /** Acknowledged writes: marker → the message's id, its guild and when the answer came. */
  readonly acknowledged: ReadonlyMap<string, Acknowledged>
  /** Writes sent but never acknowledged (given up when the load stopped). */
  readonly unacknowledged: ReadonlySet<string>
  /** Markers of writes that got an answer twice with different message ids (a retried write applied twice). */
  readonly answeredTwice: ReadonlyArray<string>
  readonly stop: () => Promise<void>
}

/** The marker a write's content and nonce carry: unique in the run. */
const MARKER = "fault:"

/** Starts a writer and a reader per guild; `stop` waits for the requests in flight. */
export const startLoad = (options: LoadOptions): Load => {
  const samples: Array<Sample> = []
  const acknowledged = new Map<string, Acknowledged>()
  const unacknowledged = new Set<string>()
  const answeredTwice: Array<string> = []
  const run = randomUUID().slice(0, 8)
  let running = true
  const pause = options.pauseMs ?? 50
  const keep = options.keepSamples ?? true
  const record = (sample: Sample) => {
    if (keep) samples.push(sample)
    options.onSample?.(sample)
  }
  const attempt = async (guild: number, kind: Sample["kind"], api: number, method: string, path: string, body?: unknown) => {
    const at = Date.now()
    const base = options.apis[api % options.apis.length] ?? ""
    try {
      const reply = await call(base, method, path, options.guilds[guild]?.token, body, options.timeoutMs)
      const code = isJson(reply.body) && typeof reply.body.code === "string" ? reply.body.code : undefined
      record({ at, guild, kind, status: reply.status, ms: Date.now() - at, ...(code === undefined ? {} : { code }) })
      return reply
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError"
      record({ at, guild, kind, status: timedOut ? -1 : 0, ms: Date.now() - at })
      return undefined
    }
  }
  const writer = async (index: number, guild: LoadGuild) => {
    let api = index
    for (let seq = 0; running; seq++) {
      const marker = `${MARKER}${run}:${index}:${seq}`
      unacknowledged.add(marker)
      // The same nonce on every try: the server applies the write once, however often it is sent.
      while (running) {
        const reply = await attempt(index, "write", api, "POST", `/channels/${guild.channelId}/messages`, {
          content: marker,
          nonce: marker.slice(-25),
          enforce_nonce: true
        })
        if (reply !== undefined && reply.status === 200 && isJson(reply.body)) {
          const id = String(reply.body.id)
          const earlier = acknowledged.get(marker)
          if (earlier !== undefined && earlier.id !== id) answeredTwice.push(marker)
          acknowledged.set(marker, { id, guild: index, at: Date.now() })
          unacknowledged.delete(marker)
          break
        }
        if (reply === undefined) api++
        if (reply !== undefined && reply.status < 500) {
          unacknowledged.delete(marker)
          break
        }
        await sleep(pause)
      }
      await sleep(pause)
    }
  }
  const reader = async (index: number, guild: LoadGuild) => {
    let api = index + 1
    for (let n = 0; running; n++) {
      const path = n % 2 === 0 ? `/guilds/${guild.guildId}` : `/channels/${guild.channelId}/messages?limit=5`
      const reply = await attempt(index, "read", api, "GET", path)
      if (reply === undefined) api++
      await sleep(pause)
    }
  }
  const clients = options.guilds.flatMap((guild, i) => [writer(i, guild), reader(i, guild)])
  return {
    samples,
    acknowledged,
    unacknowledged,
    answeredTwice,
    stop: async () => {
      running = false
      await Promise.all(clients)
    }
  }
}

/** Nonces are at most 25 characters (the reference's MessageNonceRequest); the marker's tail is unique in a run. */
export const isLoadMarker = (content: string) => content.startsWith(MARKER)
