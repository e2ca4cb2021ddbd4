import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { field } from "../support/Api.ts"
import { clusterEnvironment, clusterJson, clusterRegister } from "../support/Cluster.ts"
import { freePort, startProcess, waitHealthy } from "../support/Processes.ts"

/** One deployment: its own database and key prefix, a shard process and an API process. */
const deployment = Effect.gen(function*() {
  const { env } = yield* clusterEnvironment()
  yield* startProcess("shards/main.ts", { ...env, SHARD_PORT: String(yield* freePort) })
  const port = yield* freePort
  const api = yield* startProcess("src/main.ts", { ...env, PORT: String(port) })
  const base = `http://127.0.0.1:${port}`
  yield* waitHealthy(`${base}/_health`, api, 90)
  return base
})

const createGuilds = (base: string, token: string, count: number) =>
  Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) =>
    Effect.map(
      clusterJson(`${base}/guilds`, { method: "POST", token, body: { name: `guild ${i}` } }),
      (reply) => field(reply.body, "id")
    ), { concurrency: 5 })

it.live("two deployments on one Redis, each under its own key prefix, never answer each other's guilds", () =>
  Effect.gen(function*() {
    const [first, second] = yield* Effect.all([deployment, deployment], { concurrency: 2 })
    const owners = yield* Effect.all([clusterRegister(first, "first@example.com"), clusterRegister(second, "second@example.com")])
    const guilds = yield* Effect.all([createGuilds(first, owners[0].token, 20), createGuilds(second, owners[1].token, 20)])

    // With one shared runner list, a third or so of each deployment's shards belonged to the
    // other, which answered those guilds from its own database: 404.
    const sides = [{ base: first, owner: owners[0], ids: guilds[0] }, { base: second, owner: owners[1], ids: guilds[1] }]
    for (const { base, ids, owner } of sides) {
      const statuses = yield* Effect.forEach(ids, (id) =>
        Effect.map(clusterJson(`${base}/guilds/${id}`, { token: owner.token }), (reply) => reply.status), { concurrency: 5 })
      assert.deepStrictEqual(statuses, ids.map(() => 200))
    }
  }), { timeout: 180_000 })
