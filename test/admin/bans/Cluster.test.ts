import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { clusterEnvironment, clusterRegister, shardAndTwoApis } from "../../support/Cluster.ts"

/** A request to one API process, as from `address` behind the proxy the test stands for. */
const status = (url: string, init: { method?: string; token: string; address: string; body?: unknown }) =>
  Effect.promise(() =>
    fetch(url, {
      method: init.method ?? "GET",
      headers: { authorization: init.token, "x-forwarded-for": init.address, "content-type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body)
    }).then((r) => r.status)
  )

it.live("an IP ban made through API process A is enforced by API process B within a second", () =>
  Effect.gen(function*() {
    const { env, adminKey } = yield* clusterEnvironment({ TRUSTED_PROXIES: "127.0.0.1" })
    const { first: a, second: b } = yield* shardAndTwoApis(env)
    const user = yield* clusterRegister(b.base, "cluster-ban@example.com")
    const me = (address: string) => status(`${b.base}/users/@me`, { token: user.token, address })
    assert.strictEqual(yield* me("198.51.100.7"), 200)

    const op = { method: "POST", token: `Admin ${adminKey}`, address: "127.0.0.1" }
    assert.strictEqual(yield* status(`${a.base}/admin/bans/ip/add`, { ...op, body: { ip: "198.51.100.0/24" } }), 204)
    const banned = Date.now()
    while ((yield* me("198.51.100.7")) !== 403) {
      assert.isBelow(Date.now() - banned, 1_000, "B still serves the banned address")
      yield* Effect.sleep("20 millis")
    }
    assert.strictEqual(yield* me("198.51.101.7"), 200)

    assert.strictEqual(yield* status(`${a.base}/admin/bans/ip/remove`, { ...op, body: { ip: "198.51.100.0/24" } }), 204)
    const lifted = Date.now()
    while ((yield* me("198.51.100.7")) !== 200) {
      assert.isBelow(Date.now() - lifted, 1_000, "B still refuses the address")
      yield* Effect.sleep("20 millis")
    }
  }), { timeout: 180_000 })
