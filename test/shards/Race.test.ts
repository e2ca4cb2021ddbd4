import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { field } from "../support/Api.ts"
import { clusterEnvironment } from "../support/Cluster.ts"
import { queryAt } from "../support/Postgres.ts"
import { freePort, startProcess, waitHealthy } from "../support/Processes.ts"

/** How many writes each kind of race sends, half through each API process. */
const RACERS = 12
const MEMBER_ROLE_UPDATE = 25
const CHANNEL_CREATE = 10

interface Timed {
  readonly via: number
  readonly status: number
  readonly body: unknown
  readonly startedAt: number
  readonly endedAt: number
}

const send = (base: string, via: number, method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  Effect.promise(async (): Promise<Timed> => {
    const startedAt = performance.now()
    const response = await fetch(base + path, {
      method,
      headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000)
    })
    const text = await response.text()
    return { via, status: response.status, body: text === "" ? undefined : JSON.parse(text) as unknown, startedAt, endedAt: performance.now() }
  })

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

const stringsOf = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []

const sorted = (values: Iterable<string>) => [...values].sort()

it.live("concurrent writes to one guild through two API processes are serialized by its actor: no update is lost", () =>
  Effect.gen(function*() {
    const { databaseUrl, adminKey, env: common } = yield* clusterEnvironment()
    const shardPort = yield* freePort
    yield* startProcess("shards/main.ts", { ...common, SHARD_PORT: String(shardPort) })
    const startApi = Effect.gen(function*() {
      const port = yield* freePort
      const started = yield* startProcess("src/main.ts", { ...common, PORT: String(port) })
      return { base: `http://127.0.0.1:${port}`, started }
    })
    const apis = [yield* startApi, yield* startApi]
    yield* Effect.forEach(apis, ({ base, started }) => waitHealthy(`${base}/_health`, started, 90), { concurrency: "unbounded", discard: true })
    const baseOf = (via: number) => apis[via % apis.length]?.base ?? ""
    const output = () => apis.map(({ started }) => started.output()).join("\n---\n")

    const registered = yield* send(baseOf(0), 0, "POST", "/auth/register", {}, {
      email: `race-${randomUUID().slice(0, 8)}@example.com`,
      password: "correct horse battery",
      date_of_birth: "2000-01-01",
      consent: true
    })
    const auth = { authorization: field(registered.body, "token") }
    const ownerId = field(registered.body, "user_id")
    const request = (via: number, method: string, path: string, body?: unknown) => send(baseOf(via), via, method, path, auth, body)

    const guild = yield* request(0, "POST", "/guilds", { name: "Race hall" })
    assert.strictEqual(guild.status, 200, JSON.stringify(guild.body))
    const guildId = field(guild.body, "id")
    const channelsBefore = yield* request(1, "GET", `/guilds/${guildId}/channels`)
    assert.strictEqual(channelsBefore.status, 200, JSON.stringify(channelsBefore.body))
    const existingChannels = Array.isArray(channelsBefore.body) ? channelsBefore.body.length : -1

    const roles = yield* Effect.forEach(Array.from({ length: RACERS }, (_, i) => i), (i) =>
      Effect.map(request(i, "POST", `/guilds/${guildId}/roles`, { name: `racer ${i}` }), (reply) => {
        assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
        return field(reply.body, "id")
      }), { concurrency: 4 })

    // Every racer reads the member's roles (or the channel count) and writes it back changed;
    // without one writer per guild, two of them would start from the same state and one lose.
    const grants = roles.map((roleId, i) => request(i, "PUT", `/guilds/${guildId}/members/${ownerId}/roles/${roleId}`))
    const creations = roles.map((_, i) => request(i + 1, "POST", `/guilds/${guildId}/channels`, { type: 0, name: `race-${i}` }))
    const replies = yield* Effect.all([...grants, ...creations], { concurrency: "unbounded" })
    const granted = replies.slice(0, RACERS)
    const created = replies.slice(RACERS)
    for (const reply of granted) assert.strictEqual(reply.status, 204, `grant via ${reply.via}: ${JSON.stringify(reply.body)}\n${output()}`)
    for (const reply of created) assert.strictEqual(reply.status, 200, `create via ${reply.via}: ${JSON.stringify(reply.body)}\n${output()}`)
    // The two processes really were in flight at the same time.
    const overlapping = replies.some((a) => a.via === 0 && replies.some((b) => b.via === 1 && a.startedAt < b.endedAt && b.startedAt < a.endedAt))
    assert.isTrue(overlapping, "no request of one API process overlapped one of the other")
    const lastStart = Math.max(...replies.map((r) => r.startedAt))
    const inFlight = replies.filter((r) => r.endedAt > lastStart).length
    console.log(`race: ${replies.length} writes over 2 API processes, ${inFlight} still in flight when the last one was sent`)
    const channelIds = created.map((reply) => field(reply.body, "id"))
    assert.strictEqual(new Set(channelIds).size, RACERS)

    const expectedPositions = Array.from({ length: RACERS }, (_, i) => existingChannels + i)
    const checkThrough = (via: number, when: string) =>
      Effect.gen(function*() {
        const member = yield* request(via, "GET", `/guilds/${guildId}/members/${ownerId}`)
        assert.strictEqual(member.status, 200, JSON.stringify(member.body))
        assert.deepStrictEqual(sorted(stringsOf(isRecord(member.body) ? member.body.roles : undefined)), sorted(roles), `${when}: member roles`)
        const channels = yield* request(via, "GET", `/guilds/${guildId}/channels`)
        assert.strictEqual(channels.status, 200, JSON.stringify(channels.body))
        const listed = Array.isArray(channels.body) ? channels.body.filter(isRecord) : []
        assert.strictEqual(listed.length, existingChannels + RACERS, `${when}: channel count`)
        const raced = listed.filter((c) => typeof c.id === "string" && channelIds.includes(c.id))
        assert.strictEqual(raced.length, RACERS, `${when}: raced channels listed`)
        const positions = raced.map((c) => Number(c.position)).sort((a, b) => a - b)
        assert.deepStrictEqual(positions, expectedPositions, `${when}: each channel its own position`)
      })
    // From memory, through both API processes.
    yield* checkThrough(0, "in memory")
    yield* checkThrough(1, "in memory")

    // In Postgres: the member row, the channel rows, and one audit entry per acknowledged write.
    const [memberRow] = yield* queryAt(databaseUrl, "SELECT roles::text[] AS roles FROM guild_members WHERE guild_id = $1 AND user_id = $2", [guildId, ownerId])
    assert.deepStrictEqual(sorted(stringsOf(memberRow?.roles)), sorted(roles))
    const channelRows = yield* queryAt(databaseUrl, "SELECT id::text AS id, position FROM channels WHERE id = ANY($1::bigint[]) ORDER BY position", [channelIds])
    assert.deepStrictEqual(channelRows.map((row) => Number(row.position)), expectedPositions)
    const roleAudits = yield* queryAt(
      databaseUrl,
      "SELECT target_id, changes FROM guild_audit_log_entries WHERE guild_id = $1 AND action_type = $2",
      [guildId, MEMBER_ROLE_UPDATE]
    )
    assert.strictEqual(roleAudits.length, RACERS)
    const auditedRoles = roleAudits.map((row) => {
      assert.strictEqual(row.target_id, ownerId)
      const [change] = Array.isArray(row.changes) ? row.changes.filter(isRecord) : []
      assert.strictEqual(change?.key, "$add")
      const [added] = Array.isArray(change?.new_value) ? change.new_value.filter(isRecord) : []
      return typeof added?.id === "string" ? added.id : ""
    })
    assert.deepStrictEqual(sorted(auditedRoles), sorted(roles))
    const channelAudits = yield* queryAt(
      databaseUrl,
      "SELECT target_id FROM guild_audit_log_entries WHERE guild_id = $1 AND action_type = $2",
      [guildId, CHANNEL_CREATE]
    )
    assert.deepStrictEqual(sorted(channelAudits.map((row) => String(row.target_id))), sorted(channelIds))

    // The actor reloaded from Postgres holds the same state.
    const reload = yield* send(baseOf(1), 1, "POST", "/admin/guilds/reload", { authorization: `Admin ${adminKey}` }, { guild_id: guildId })
    assert.strictEqual(reload.status, 200, JSON.stringify(reload.body))
    yield* checkThrough(0, "after reload")
    yield* checkThrough(1, "after reload")
  }), { timeout: 120_000 })
