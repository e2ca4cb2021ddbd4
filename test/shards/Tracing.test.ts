import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { field } from "../support/Api.ts"
import { clusterEnvironment, clusterJson, clusterRegister, eventually } from "../support/Cluster.ts"
import { otlpReceiver, type ReceivedSpan } from "../support/OtlpReceiver.ts"
import { freePort, startProcess, waitHealthy } from "../support/Processes.ts"
import { identifyAt, nextOfType } from "../gateway/Client.ts"

/** The spans of `span`'s trace from it up to the root, following parent ids among `all`. */
const ancestors = (span: ReceivedSpan, all: ReadonlyArray<ReceivedSpan>): Array<ReceivedSpan> => {
  const byId = new Map(all.map((s) => [s.spanId, s]))
  const chain: Array<ReceivedSpan> = []
  let parent = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId)
  while (parent !== undefined && !chain.includes(parent)) {
    chain.push(parent)
    parent = parent.parentSpanId === undefined ? undefined : byId.get(parent.parentSpanId)
  }
  return chain
}

const isMessageCreate = (span: ReceivedSpan) =>
  span.attributes["http.route"] === "/channels/:channel_id/messages" && span.attributes["http.request.method"] === "POST"

it.live("one message create is one trace: the API's request span, the guild actor's span on the shard process, its commit and SQL, the gateway's dispatch back in the API process", () =>
  Effect.gen(function*() {
    const receiver = yield* otlpReceiver
    const { env } = yield* clusterEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: "200" })
    yield* startProcess("shards/main.ts", { ...env, SHARD_PORT: String(yield* freePort) })
    const port = yield* freePort
    const base = `http://127.0.0.1:${port}`
    const api = yield* startProcess("src/main.ts", { ...env, PORT: String(port) })
    yield* waitHealthy(`${base}/_health`, api, 90)

    const { token } = yield* clusterRegister(base, "traced@example.com")
    const guild = yield* clusterJson(`${base}/guilds`, { method: "POST", token, body: { name: "traced" } })
    const guildId = field(guild.body, "id")
    const channel = yield* clusterJson(`${base}/guilds/${guildId}/channels`, { method: "POST", token, body: { name: "general", type: 0 } })
    const channelId = field(channel.body, "id")
    const { client } = yield* identifyAt(`ws://127.0.0.1:${port}/gateway/socket?v=1&encoding=json`, token)
    const message = yield* clusterJson(`${base}/channels/${channelId}/messages`, { method: "POST", token, body: { content: "hello" } })
    assert.strictEqual(message.status, 200, JSON.stringify(message.body))
    yield* nextOfType(client, "MESSAGE_CREATE")

    // The API's span of the request, and the shard's span of the guild actor's write in its trace.
    const traced = yield* eventually("the message create's spans from both processes", Effect.sync(() => {
      const spans = receiver.spans()
      const request = spans.find(isMessageCreate)
      const trace = request === undefined ? [] : spans.filter((s) => s.traceId === request.traceId)
      const write = trace.find((s) => s.name === "Guild.Write" && s.resource["service.name"] === "guildhall-shard")
      const commit = trace.find((s) => s.name === "WriteBatch.commit")
      const dispatch = trace.find((s) => s.name === "gateway.dispatch")
      return { request, trace, write, commit, dispatch }
    }), ({ write, commit, dispatch }) => write !== undefined && commit !== undefined && dispatch !== undefined)
    const { request, trace, write, commit, dispatch } = traced
    assert.isDefined(request)
    assert.isDefined(write)
    assert.isDefined(commit)
    assert.isDefined(dispatch)
    if (request === undefined || write === undefined || commit === undefined || dispatch === undefined) return

    // Two processes, told apart by their service names and pids.
    assert.strictEqual(request.resource["service.name"], "guildhall-api")
    assert.strictEqual(request.resource["guildhall.process.role"], "api")
    assert.strictEqual(write.resource["guildhall.process.role"], "shard")
    assert.notStrictEqual(request.resource["process.pid"], write.resource["process.pid"])
    assert.strictEqual(request.attributes["http.response.status_code"], "200")

    // The shard's span descends from the API's request span; the commit from the shard's span, with its SQL under it.
    assert.include(ancestors(write, trace).map((s) => s.spanId), request.spanId)
    assert.include(ancestors(commit, trace).map((s) => s.spanId), write.spanId)
    assert.isTrue(trace.some((s) => s.resource["service.name"] === "guildhall-shard" && ancestors(s, trace).includes(commit) && s.attributes["db.system.name"] !== undefined),
      `no SQL span under the commit: ${trace.map((s) => s.name).join(", ")}`)
    // And back: the API process's gateway delivered the event in the same trace, under the commit.
    assert.strictEqual(dispatch.resource["service.name"], "guildhall-api")
    assert.strictEqual(dispatch.attributes["gateway.event"], "MESSAGE_CREATE")
    assert.include(ancestors(dispatch, trace).map((s) => s.spanId), commit.spanId)
  }), { timeout: 180_000 })

it.live("without OTEL_EXPORTER_OTLP_ENDPOINT nothing is sent", () =>
  Effect.gen(function*() {
    const receiver = yield* otlpReceiver
    // The receiver's address is given under another name: a process that exported would have to guess it.
    const { env } = yield* clusterEnvironment({ OTEL_BSP_SCHEDULE_DELAY: "200", UNRELATED_OTLP_RECEIVER: receiver.endpoint })
    yield* startProcess("shards/main.ts", { ...env, SHARD_PORT: String(yield* freePort) })
    const port = yield* freePort
    const base = `http://127.0.0.1:${port}`
    const api = yield* startProcess("src/main.ts", { ...env, PORT: String(port) })
    yield* waitHealthy(`${base}/_health`, api, 90)
    const { token } = yield* clusterRegister(base, "untraced@example.com")
    const guild = yield* clusterJson(`${base}/guilds`, { method: "POST", token, body: { name: "untraced" } })
    assert.strictEqual(guild.status, 200)
    yield* Effect.sleep("1 second")
    assert.deepStrictEqual(receiver.posts(), [])
  }), { timeout: 180_000 })
