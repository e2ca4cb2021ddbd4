import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { fromBuffer, type Entry, type ZipFile } from "yauzl"
import type { Reply } from "../support/Api.ts"

/** Every file of a zip by name, as text, read with yauzl. */
export const filesOf = (zip: Buffer) =>
  Effect.promise(() =>
    new Promise<Map<string, string>>((resolve, reject) => {
      fromBuffer(zip, { lazyEntries: true }, (error: Error | null, file: ZipFile) => {
        if (error !== null) return reject(error)
        const files = new Map<string, string>()
        file.on("entry", (entry: Entry) => {
          file.openReadStream(entry, (streamError, stream) => {
            if (streamError !== null) return reject(streamError)
            const chunks: Array<Buffer> = []
            stream.on("data", (chunk: Buffer) => chunks.push(chunk))
            stream.on("end", () => {
              files.set(entry.fileName, Buffer.concat(chunks).toString("utf8"))
              file.readEntry()
            })
            stream.on("error", reject)
          })
        })
        file.on("end", () => resolve(files))
        file.on("error", reject)
        file.readEntry()
      })
    })
  )

/** A JSON file of the zip, parsed. */
export const jsonIn = (files: ReadonlyMap<string, string>, name: string): unknown => {
  const text = files.get(name)
  assert.isDefined(text, `${name} in ${[...files.keys()].join(", ")}`)
  return JSON.parse(text ?? "null")
}

export const arrayIn = (files: ReadonlyMap<string, string>, name: string): ReadonlyArray<unknown> => {
  const value = jsonIn(files, name)
  assert.isTrue(Array.isArray(value), name)
  return Array.isArray(value) ? value : []
}

/** GET of a URL with no credential: the status and the bytes. */
export const fetchFile = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, contentType: response.headers.get("content-type"), bytes: Buffer.from(await response.arrayBuffer()) }
  })

/** The status of a harvest or archive reply, polled with `get` until it is finished; every status seen on the way. */
export const untilFinished = <R>(get: Effect.Effect<Reply, never, R>, seconds = 60) =>
  Effect.gen(function*() {
    const seen: Array<unknown> = []
    const deadline = Date.now() + seconds * 1000
    for (;;) {
      const reply = yield* get
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      seen.push(reply.body)
      // Both a harvest and an admin archive say when they ended (only a harvest has a status).
      const ended = (key: string) => typeof reply.body === "object" && reply.body !== null && typeof Reflect.get(reply.body, key) === "string"
      if (ended("completed_at") || ended("failed_at")) return { last: reply.body, seen }
      if (Date.now() > deadline) return yield* Effect.die(new Error(`not finished in ${seconds} s: ${JSON.stringify(reply.body)}`))
      yield* Effect.sleep("100 millis")
    }
  })
