import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ok, user } from "../dms/Fixtures.ts"
import { guildWithChannel, sent } from "../messages/Fixtures.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { addMember } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { startProcess, stopProcess } from "../support/Processes.ts"
import { arrayIn, fetchFile, filesOf, untilFinished } from "./Zips.ts"

const MESSAGES = 40

/** A process running archive jobs only (src/archives/worker.ts) on the test API's database, pages of 4 with `pauseMillis` after each. */
const worker = (pauseMillis: number) =>
  Effect.flatMap(TestApi, (api) =>
    startProcess("src/archives/worker.ts", {
      DATABASE_URL: api.databaseUrl,
      ARCHIVE_JOB_SWEEP_SECONDS: "1",
      ARCHIVE_JOB_LEASE_SECONDS: "2",
      ARCHIVE_PAGE_SIZE: "4",
      ARCHIVE_PAGE_PAUSE_MS: String(pauseMillis)
    }))

/** The harvest's status once `done` holds of it. */
const waitFor = (token: string, harvestId: string, done: (status: unknown) => boolean) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const deadline = Date.now() + 60_000
    for (;;) {
      const status = ok(yield* api.request("GET", `/users/@me/harvest/${harvestId}`, { token }))
      if (done(status)) return status
      if (Date.now() > deadline) return yield* Effect.die(new Error(`still ${JSON.stringify(status)}`))
      yield* Effect.sleep("100 millis")
    }
  })

const valueOf = (status: unknown, key: string): unknown => (typeof status === "object" && status !== null ? Reflect.get(status, key) : undefined)

// The API's own sweep runs once at start and then not for an hour: the workers do the job.
layer(TestApi.layerWith({ ARCHIVE_JOB_SWEEP_SECONDS: "3600" }), { timeout: 180_000, excludeTestServices: true })("harvest: crash", (it) => {
  it.effect("a worker killed mid-export: the job is taken again when its lease runs out and ends with a whole archive", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* user
      const g = yield* guildWithChannel
      yield* addMember(g.guildId, me.userId)
      const written = yield* Effect.forEach(Array.from({ length: MESSAGES }, (_, i) => i), (i) => sent(me.token, g.channelId, `line ${i}`))
      const harvestId = field(ok(yield* api.request("POST", "/users/@me/harvest", { token: me.token })), "harvest_id")

      const first = yield* worker(400)
      const midway = yield* waitFor(me.token, harvestId, (s) => {
        const percent = valueOf(s, "progress_percent")
        return valueOf(s, "progress_step") === "messages" && typeof percent === "number" && percent > 20
      })
      yield* stopProcess(first.child, "SIGKILL")
      expect(midway).toMatchObject({ status: "processing", completed_at: null })
      // Nothing half-written is offered.
      expectError(yield* api.request("GET", `/users/@me/harvest/${harvestId}/download`, { token: me.token }), 400, "HARVEST_NOT_READY")

      const second = yield* worker(0)
      const { last } = yield* untilFinished(api.request("GET", `/users/@me/harvest/${harvestId}`, { token: me.token }))
      expect(last).toMatchObject({ status: "completed", progress_percent: 100 })
      const attempts = yield* queryAt(api.databaseUrl, "SELECT attempts FROM archives WHERE id = $1", [harvestId])
      assert.strictEqual(attempts[0]?.attempts, 2)

      const signed = new URL(field(ok(yield* api.request("GET", `/users/@me/harvest/${harvestId}/download`, { token: me.token })), "download_url"))
      const file = yield* fetchFile(`${api.baseUrl}${signed.pathname}${signed.search}`)
      assert.strictEqual(file.status, 200)
      const messages = arrayIn(yield* filesOf(file.bytes), "messages.json")
      expect(messages.map((m) => field(m, "id"))).toEqual(written)
      yield* stopProcess(second.child)
    })))
})
