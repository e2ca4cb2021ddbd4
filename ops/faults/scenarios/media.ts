// The media store's disk under the load, with attachments uploaded (multipart message creates)
// beside it. Full: DATA_DIR/media becomes a 1-MiB tmpfs filled to the last byte; uploads must be
// refused cleanly (an error object, never a 500 or a hang) while everything else carries on,
// and work again once space is freed. Slow: the S3 store against a local fake S3 whose PUTs
// take seconds (this machine has no device-mapper and cgroup v1, so no dm-delay or io.max);
// uploads slow down, reads and message writes keep their latency.
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs/promises"
import { createServer, type Server } from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import type { LoadGuild, Sample } from "../lib/load.ts"
import { CLIENT_TIMEOUT_MS, type FaultScenario, type FaultWorld } from "../lib/scenario.ts"
import type { FaultFigures } from "../lib/verify.ts"

interface Upload {
  readonly at: number
  readonly status: number
  readonly ms: number
  readonly code?: string
}

/** One message create with a 64-KiB attachment of fresh bytes (never deduplicated by the store). */
const upload = async (base: string, guild: LoadGuild): Promise<Upload> => {
  const at = Date.now()
  const form = new FormData()
  form.append("payload_json", JSON.stringify({ content: "upload", attachments: [{ id: 0, filename: "f.bin" }] }))
  form.append("files[0]", new Blob([randomBytes(64 * 1024)]), "f.bin")
  try {
    const reply = await fetch(`${base}/channels/${guild.channelId}/messages`, {
      method: "POST",
      headers: { authorization: guild.token },
      body: form,
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS)
    })
    const body: unknown = await reply.json().catch(() => undefined)
    const code = typeof body === "object" && body !== null ? Reflect.get(body, "code") : undefined
    return { at, status: reply.status, ms: Date.now() - at, ...(typeof code === "string" ? { code } : {}) }
  } catch (error) {
    return { at, status: error instanceof Error && error.name === "TimeoutError" ? -1 : 0, ms: Date.now() - at }
  }
}

/** Uploaders (one per the first `count` guilds) until `until()`; every answer is kept. */
const uploading = async (world: FaultWorld, until: () => boolean, into: Array<Upload>, count = 3) => {
  const base = world.cluster.apis[0]?.base ?? ""
  await Promise.all(world.guilds.slice(0, count).map(async (guild) => {
    while (!until()) {
      into.push(await upload(base, guild))
      await sleep(100)
    }
  }))
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}
const p95 = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length * 0.95)] ?? Number.NaN
}
const statuses = (uploads: ReadonlyArray<Upload>) => {
  const by: Record<string, number> = {}
  for (const u of uploads) {
    const key = `${u.status}${u.code === undefined ? "" : ` ${u.code}`}`
    by[key] = (by[key] ?? 0) + 1
  }
  return Object.entries(by).map(([k, n]) => `${k} ×${n}`).join(", ")
}
/** Upload answers that break the rules: a 5xx other than 503, a hang, an error without the error object. */
const badUploads = (uploads: ReadonlyArray<Upload>) => ({
  serverErrors: uploads.filter((u) => (u.status >= 500 && u.status !== 503) || (u.status >= 400 && u.code === undefined)).length,
  hangs: uploads.filter((u) => u.status === -1).length
})
const charge = (figures: FaultFigures, uploads: ReadonlyArray<Upload>, notes: ReadonlyArray<string>): FaultFigures => {
  const bad = badUploads(uploads)
  return {
    ...figures,
    serverErrors: figures.serverErrors + bad.serverErrors,
    hangs: figures.hangs + bad.hangs,
    notes: [...figures.notes, ...notes]
  }
}
const okMs = (samples: ReadonlyArray<Sample>, kind: Sample["kind"], from: number, to: number) =>
  samples.filter((s) => s.kind === kind && s.status === 200 && s.at >= from && s.at < to).map((s) => s.ms)

// --- full: a tmpfs of 1 MiB over DATA_DIR/media ---------------------------------------------

const FULL_MS = 8_000
let fullDir = ""
const fullUploads: Array<Upload> = []
const freedUploads: Array<Upload> = []

const full: FaultScenario = {
  name: "media disk full (1-MiB tmpfs)",
  setup: async () => {
    fullDir = await Fs.mkdtemp(Path.join(Os.tmpdir(), "guildhall-faults-media-"))
    fullUploads.length = 0
    freedUploads.length = 0
    return {
      env: { DATA_DIR: fullDir },
      cleanup: async () => {
        try {
          execFileSync("umount", ["-l", Path.join(fullDir, "media")], { stdio: "ignore" })
        } catch {
          // not mounted (the fault never started)
        }
        await Fs.rm(fullDir, { recursive: true, force: true })
      }
    }
  },
  inject: async (world) => {
    const media = Path.join(fullDir, "media")
    await Fs.mkdir(media, { recursive: true })
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", media])
    const filler = Path.join(media, "filler")
    // Written until the disk refuses: full to the last block.
    await Fs.writeFile(filler, new Uint8Array(2 * 1024 * 1024)).catch(() => undefined)
    const end = Date.now() + FULL_MS
    await uploading(world, () => Date.now() >= end, fullUploads)
    await Fs.rm(filler)
    // Space freed: uploads work again (three in a row per uploader is plenty).
    const until = Date.now() + 10_000
    await uploading(world, () => freedUploads.filter((u) => u.status === 200).length >= 6 || Date.now() > until, freedUploads)
    const left = (await Fs.readdir(media, { recursive: true })).filter((f) => f.endsWith(".partial")).length
    return [
      `uploads while full: ${statuses(fullUploads)}`,
      `after freeing: ${statuses(freedUploads)}`,
      `partial files left on the full disk: ${left}`
    ]
  },
  afterwards: async (_world, figures) => {
    const back = freedUploads.some((u) => u.status === 200)
    const refusedCleanly = fullUploads.length > 0 && fullUploads.every((u) => u.status === 503 && u.code !== undefined)
    const notes = [
      ...(back ? [] : ["**uploads did not work again after space was freed**"]),
      ...(refusedCleanly ? [] : ["**not every upload on the full disk was a clean 503**"])
    ]
    const charged = charge(figures, [...fullUploads, ...freedUploads], notes)
    return back && refusedCleanly ? charged : { ...charged, recoverySeconds: Number.POSITIVE_INFINITY }
  }
}

// --- slow: the S3 store against a fake S3 whose PUTs take seconds -----------------------------

const SLOW_PUT_MS = 3_000
const SLOW_MS = 10_000

/** A path-style S3 of one bucket in memory, signatures unchecked; `delay` holds each PUT's answer. */
const fakeS3 = async () => {
  const objects = new Map<string, Buffer>()
  const state = { delay: 0 }
  const server: Server = createServer((request, response) => {
    const key = request.url ?? ""
    const chunks: Array<Buffer> = []
    request.on("data", (c: Buffer) => chunks.push(c))
    request.on("end", () => {
      if (request.method === "PUT") {
        setTimeout(() => {
          objects.set(key, Buffer.concat(chunks))
          response.writeHead(200).end()
        }, state.delay)
      } else if (request.method === "HEAD" || request.method === "GET") {
        const object = objects.get(key)
        if (object === undefined) response.writeHead(404).end()
        else response.writeHead(200, { "content-length": String(object.length) }).end(request.method === "GET" ? object : undefined)
      } else if (request.method === "DELETE") {
        objects.delete(key)
        response.writeHead(204).end()
      } else {
        response.writeHead(405).end()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return { port, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

let s3: Awaited<ReturnType<typeof fakeS3>> | undefined
const fastUploads: Array<Upload> = []
const slowUploads: Array<Upload> = []
let slowFrom = 0
let slowTo = 0
let before = 0

const slow: FaultScenario = {
  name: "media store slow (S3 PUT +3 s)",
  setup: async () => {
    s3 = await fakeS3()
    fastUploads.length = 0
    slowUploads.length = 0
    return {
      env: {
        MEDIA_S3_ENDPOINT: `http://127.0.0.1:${s3.port}`,
        MEDIA_S3_BUCKET: "faults",
        MEDIA_S3_ACCESS_KEY_ID: "faults",
        MEDIA_S3_SECRET_ACCESS_KEY: "faults-secret"
      },
      cleanup: async () => {
        await s3?.close()
      }
    }
  },
  inject: async (world) => {
    const store = s3
    if (store === undefined) throw new Error("no fake S3")
    before = Date.now()
    const fastEnd = Date.now() + 4_000
    await uploading(world, () => Date.now() >= fastEnd, fastUploads)
    store.state.delay = SLOW_PUT_MS
    slowFrom = Date.now()
    const slowEnd = slowFrom + SLOW_MS
    await uploading(world, () => Date.now() >= slowEnd, slowUploads)
    slowTo = Date.now()
    store.state.delay = 0
    return [
      `uploads: median ${median(fastUploads.map((u) => u.ms))} ms before, ${median(slowUploads.map((u) => u.ms))} ms slow (${statuses(slowUploads)})`
    ]
  },
  afterwards: async (world, figures) => {
    const samples = world.load.samples
    const line = (kind: Sample["kind"]) => {
      const a = okMs(samples, kind, before, slowFrom)
      const b = okMs(samples, kind, slowFrom, slowTo)
      return `${kind}s p50/p95 ${median(a)}/${p95(a)} ms before, ${median(b)}/${p95(b)} ms while slow`
    }
    const slowed = median(slowUploads.map((u) => u.ms)) >= SLOW_PUT_MS
    return charge(figures, [...fastUploads, ...slowUploads], [
      line("read"),
      line("write"),
      ...(slowed ? [] : ["**uploads were not slowed: the fault did not take**"])
    ])
  }
}

export const mediaScenarios: ReadonlyArray<FaultScenario> = [full, slow]
