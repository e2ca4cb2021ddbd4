// The message targets of issue 5, on the Postgres-backed server of ops/bench/run.ts:
// message create in one hot channel and spread over 100 channels, a page of 50 messages,
// a webhook's execute in a channel of its own (issue 21: the same write path without a
// member), and, in the same run, the physical limit of the write path: Postgres inserting one
// message row per statement through the same driver, at the same concurrency.
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"

const SNOWFLAKE_EPOCH = 1420070400000n

/** What run.ts lends: its load, its measuring and its checked JSON calls. */
export interface BenchTools<Figures> {
  readonly connections: number
  readonly seconds: number
  readonly measure: (target: string, url: string, extra: {
    readonly method?: "GET" | "POST"
    readonly body?: () => string
    readonly path?: () => string
  }) => Promise<Figures>
  readonly callJson: (what: string, method: string, url: string, body?: unknown) => Promise<Record<string, unknown>>
}

/**
 * Rows per second that `connections` concurrent callers insert, one message row per
 * statement and per transaction (autocommit), for `seconds`: what the write path of a
 * message would do with no batching at all.
 */
export const rawInsertRate = (options: {
  readonly url: string
  readonly guildId: string
  readonly channelId: string
  readonly authorId: string
  readonly connections: number
  readonly seconds: number
}): Promise<number> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // Ids of now, in a range of their own: the server's ids are a few below at most.
      const base = ((BigInt(Date.now()) - SNOWFLAKE_EPOCH) << 22n) + 3_000_000n
      let next = 0n
      let inserted = 0
      const deadline = Date.now() + options.seconds * 1000
      const insertOne = Effect.suspend(() => {
        const id = (base + next++).toString()
        return sql`INSERT INTO messages (channel_id, id, guild_id, author_id, content, created_at)
                   VALUES (${options.channelId}, ${id}, ${options.guildId}, ${options.authorId}, ${`raw ${id}`}, now())`
      })
      const caller = Effect.whileLoop({
        while: () => Date.now() < deadline,
        body: () => insertOne,
        step: () => {
          inserted++
        }
      })
      yield* Effect.all(Array.from({ length: options.connections }, () => caller), { concurrency: "unbounded" })
      return inserted / options.seconds
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(options.url) })), Effect.scoped)
  )

/** Text channels of the guild, made through the API; their ids. */
const makeChannels = async <F>(tools: BenchTools<F>, guildUrl: string, count: number): Promise<Array<string>> => {
  const ids: Array<string> = []
  for (let i = 0; i < count; i++) {
    const channel = await tools.callJson("create a channel", "POST", `${guildUrl}/channels`, { name: `bench-${i}`, type: 0 })
    const id = channel["id"]
    if (typeof id !== "string") throw new Error(`create a channel: no "id" in ${JSON.stringify(channel).slice(0, 300)}`)
    ids.push(id)
  }
  return ids
}

/**
 * Sets up the message targets (101 channels, a first message), then `round`
 * measures the raw insert rate and the three targets back to back: run.ts
 * runs several rounds, with health between them, and judges the median one.
 */
export const prepareMessages = async <F extends { readonly requestsPerSecond: number }>(
  tools: BenchTools<F>,
  server: { readonly base: string; readonly guildUrl: string; readonly databaseUrl: string; readonly ownerId: string }
) => {
  const guildId = server.guildUrl.slice(server.guildUrl.lastIndexOf("/") + 1)
  const channels = await makeChannels(tools, server.guildUrl, 102)
  const [raw, hooked, hot, ...spread] = channels as [string, string, string, ...Array<string>]
  const webhook = await tools.callJson("create a webhook", "POST", `${server.base}/channels/${hooked}/webhooks`, { name: "bench" })
  const webhookUrl = `${server.base}/webhooks/${String(webhook["id"])}/${String(webhook["token"])}`
  await tools.callJson("execute the webhook", "POST", `${webhookUrl}?wait=true`, { content: "first" })
  // Before measuring: a send that fails here fails the run with the server's answer.
  await tools.callJson("send a message", "POST", `${server.base}/channels/${hot}/messages`, { content: "first" })
  let sent = 0
  const body = () => JSON.stringify({ content: `bench message ${sent++}` })
  let turn = 0
  const round = async (tag: string) => {
    const insertRate = await rawInsertRate({
      url: server.databaseUrl,
      guildId,
      channelId: raw,
      authorId: server.ownerId,
      connections: tools.connections,
      seconds: tools.seconds
    })
    const hotCreate = await tools.measure(`POST /channels/{id}/messages (one channel)${tag}`, `${server.base}/channels/${hot}/messages`, {
      method: "POST",
      body
    })
    const spreadCreate = await tools.measure(`POST /channels/{id}/messages (100 channels)${tag}`, `${server.base}/channels/${hot}/messages`, {
      method: "POST",
      body,
      path: () => `/channels/${spread[turn++ % spread.length]}/messages`
    })
    const list = await tools.measure(`GET /channels/{id}/messages?limit=50${tag}`, `${server.base}/channels/${hot}/messages?limit=50`, {})
    const webhookExecute = await tools.measure(`POST /webhooks/{id}/{token}?wait=true (one channel)${tag}`, `${webhookUrl}?wait=true`, {
      method: "POST",
      body
    })
    return { insertRate, hotCreate, spreadCreate, list, webhookExecute }
  }
  return { round }
}
