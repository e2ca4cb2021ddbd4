import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { identifyAt } from "../gateway/Client.ts"
import { field } from "../support/Api.ts"
import { clusterEnvironment, clusterJson as json, eventually } from "../support/Cluster.ts"
import { queryAt } from "../support/Postgres.ts"
import { freePort, startProcess, stopProcess, waitHealthy } from "../support/Processes.ts"

it.live("cluster mode: the API process holding the session ends the membership through the guild actor on a shard process", () =>
  Effect.gen(function*() {
    const { env: common, databaseUrl } = yield* clusterEnvironment()
    const shard = yield* startProcess("shards/main.ts", { ...common, SHARD_PORT: String(yield* freePort) })
    const port = yield* freePort
    const api = yield* startProcess("src/main.ts", { ...common, PORT: String(port) })
    const base = `http://127.0.0.1:${port}`
    yield* waitHealthy(`${base}/_health`, api, 90)

    const register = (email: string) =>
      Effect.map(
        json(`${base}/auth/register`, {
          method: "POST",
          body: { email, password: "correct horse battery", date_of_birth: "2000-01-01", consent: true }
        }),
        (reply) => ({ token: field(reply.body, "token"), userId: field(reply.body, "user_id") })
      )
    const owner = yield* register("owner@example.com")
    const guest = yield* register("guest@example.com")
    const guildId = field((yield* json(`${base}/guilds`, { method: "POST", token: owner.token, body: { name: "Spread" } })).body, "id")
    const guild = yield* json(`${base}/guilds/${guildId}`, { token: owner.token })
    const general = (guild.body as { channels: ReadonlyArray<{ id: string }> }).channels[0]?.id ?? ""
    const invite = yield* json(`${base}/channels/${general}/invites`, { method: "POST", token: owner.token, body: { temporary: true } })
    const joined = yield* json(`${base}/invites/${field(invite.body, "code")}`, { method: "POST", token: guest.token })
    assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))

    yield* Effect.scoped(Effect.gen(function*() {
      const { client } = yield* identifyAt(`${base.replace("http://", "ws://")}/gateway/socket?v=1&encoding=json`, guest.token)
      client.close(1000)
      yield* client.closed
    }))
    const member = json(`${base}/guilds/${guildId}/members/${guest.userId}`, { token: owner.token })
    yield* eventually("member removed", Effect.map(member, (reply) => reply.status), (status) => status === 404)
    const rows = yield* queryAt(databaseUrl, "SELECT 1 FROM guild_members WHERE guild_id = $1 AND user_id = $2", [guildId, guest.userId])
    assert.strictEqual(rows.length, 0)

    yield* stopProcess(api.child)
    yield* stopProcess(shard.child)
  }), { timeout: 240_000 })
