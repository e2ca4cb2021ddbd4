import { assert, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { field } from "./support/Api.ts"
import { freePort, startProcess, stopProcess, waitHealthy } from "./support/Processes.ts"

const post = (url: string, body: unknown, token?: string) =>
  Effect.promise(() =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: token } : {}) },
      body: JSON.stringify(body)
    }).then(async (r) => ({ status: r.status, body: await r.json() as unknown }))
  )

it.live("`npm start` with no configuration runs on the embedded Postgres and keeps its data across restarts", () =>
  Effect.gen(function*() {
    const dataDir = mkdtempSync(join(tmpdir(), "guildhall-embedded-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
    const port = yield* freePort
    const base = `http://127.0.0.1:${port}`
    const env = { PORT: String(port), DATA_DIR: dataDir }

    const first = yield* startProcess("src/main.ts", env)
    yield* waitHealthy(`${base}/_health`, first, 90)
    const registered = yield* post(`${base}/auth/register`, {
      email: "embedded@example.com", password: "correct horse battery", date_of_birth: "2000-01-01", consent: true
    })
    const token = field(registered.body, "token")
    const guild = yield* post(`${base}/guilds`, { name: "Kept" }, token)
    const guildId = field(guild.body, "id")
    yield* stopProcess(first.child)

    const second = yield* startProcess("src/main.ts", env)
    yield* waitHealthy(`${base}/_health`, second, 90)
    const reply = yield* Effect.promise(() => fetch(`${base}/guilds/${guildId}`, { headers: { authorization: token } }).then((r) => r.json()))
    expect(reply).toMatchObject({ id: guildId, name: "Kept" })
    const health = yield* Effect.promise(() => fetch(`${base}/_health`).then((r) => r.json()))
    assert.deepStrictEqual(health, { status: "ok", database: "ok", redis: "not used" })
  }), { timeout: 240_000 })
