// `npm run bench:actor`: the cost of one call to a guild actor inside one process, with no
// HTTP in front: the embedded sharding, a guild loaded in memory, `Get` called with IN_FLIGHT (50)
// calls in flight. Uses a fresh embedded database in a temporary directory (or DATABASE_URL).
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Guild } from "../../shards/guild/Protocol.ts"
import { embeddedActorsLayer } from "../../shards/Layers.ts"
import { AppConfig, settingsConfig } from "../../src/platform/Config.ts"
import { UsersRepo } from "../../src/users/Repo.ts"

const CALLS = 20_000
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 50)
const owner = { id: "1", username: "bench", discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 }

const measure = Effect.gen(function*() {
  const users = yield* UsersRepo
  yield* users.insert({ id: "1", username: "bench", discriminator: "0001", globalName: null, email: "bench@example.com", passwordHash: "-", dateOfBirth: "2000-01-01", theme: "system" })
  const guild = (yield* Guild.client)("1000")
  yield* guild.Create({ operationId: "bench-create", channelId: "1001", owner, name: "bench", icon: null })
  for (const round of [1, 2, 3]) {
    const started = performance.now()
    yield* Effect.forEach(Array.from({ length: CALLS }), () => guild.View({ userId: "1" }), { concurrency: IN_FLIGHT, discard: true })
    const ms = performance.now() - started
    yield* Console.log(`round ${round}: ${(ms * 1000 / CALLS).toFixed(1)} µs a call, ${Math.round(CALLS / ms * 1000)} calls/s`)
  }
})

const dataDir = mkdtempSync(join(tmpdir(), "guildhall-actor-bench-"))
const main = Effect.gen(function*() {
  const base = yield* settingsConfig
  const settings = { ...base, dataDir }
  yield* Effect.provide(measure, UsersRepo.layer.pipe(
    Layer.provideMerge(embeddedActorsLayer(settings)),
    Layer.provide(Layer.succeed(AppConfig, settings))
  ))
}).pipe(Effect.ensuring(Effect.sync(() => rmSync(dataDir, { recursive: true, force: true }))))

NodeRuntime.runMain(main)
