// A shard process paused (SIGSTOP) for longer than its shard lease, then woken (SIGCONT): its
// shards move to the other shard process meanwhile, and when it wakes it must not act as their
// owner. Writes reach every guild through two API processes; afterwards each guild's messages as
// its (new) owner answers them must be those Postgres holds, and no nonce may have two rows.
import { setTimeout as sleep } from "node:timers/promises"
import { Effect, Redacted } from "effect"
import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlClient } from "effect/sql"
import type { FaultScenario, FaultWorld } from "../lib/scenario.ts"
import type { FaultFigures } from "../lib/verify.ts"

/** The suite's shard lease (SHARD_LOCK_EXPIRATION_SECONDS); the pause is well past it. */
export const LEASE_SECONDS = 6
export const PAUSE_MS = 15_000

/** Per guild: the newest message ids in its channel, newest first, as Postgres holds them; and nonces stored twice. */
const stored = (databaseUrl: string, channelIds: ReadonlyArray<string>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const newest = new Map<string, ReadonlyArray<string>>()
      for (const channelId of channelIds) {
        const rows = yield* sql<{ id: string }>`
          SELECT id::text AS id FROM messages WHERE channel_id = ${channelId} ORDER BY id DESC LIMIT 50`
        newest.set(channelId, rows.map((r) => r.id))
      }
      // Snowflake ids carry their process's machine id (bits 12-21): which owner wrote each copy.
      const doubled = yield* sql<{ content: string; ids: string }>`
        SELECT content, string_agg(((id >> 12) & 1023)::text || '@' || to_char(created_at, 'HH24:MI:SS.MS'), ' ') AS ids
        FROM messages WHERE channel_id IN ${sql.in([...channelIds])}
        GROUP BY channel_id, content HAVING count(*) > 1`
      return { newest, doubled: doubled.map((r) => `${r.content} (${r.ids})`) }
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl) })), Effect.scoped)
  )

/** The newest message ids of a channel as the owner's memory answers them, through every API. */
const answered = async (base: string, token: string, channelId: string) => {
  const reply = await fetch(`${base}/channels/${channelId}/messages?limit=50`, {
    headers: { authorization: token },
    signal: AbortSignal.timeout(10_000)
  })
  if (reply.status !== 200) return `status ${reply.status}`
  const body: unknown = await reply.json()
  if (!Array.isArray(body)) return "not a list"
  return body.map((m: unknown) => (typeof m === "object" && m !== null && "id" in m ? String(m.id) : "?"))
}

/**
 * The no-double-owner check: the woken process's writes either reached Postgres before the new owner
 * loaded the guild or never; so the owner's memory and Postgres agree on every guild, and no write
 * (a nonce) was stored twice.
 */
export const ownerMatchesPostgres = async (world: FaultWorld, figures: FaultFigures): Promise<FaultFigures> => {
  const { newest, doubled } = await stored(world.databaseUrl, world.guilds.map((g) => g.channelId))
  const diverged: Array<string> = []
  for (const [i, guild] of world.guilds.entries()) {
    const expected = (newest.get(guild.channelId) ?? []).join(",")
    for (const api of world.cluster.apis) {
      const seen = await answered(api.base, guild.token, guild.channelId)
      if (typeof seen === "string" || seen.join(",") !== expected) diverged.push(`guild ${i} via ${api.name}`)
    }
  }
  return {
    ...figures,
    notes: [
      ...figures.notes,
      `owner's memory = Postgres: ${diverged.length === 0 ? "yes" : `**no** (${diverged.join("; ")})`}`,
      `nonces stored twice: ${doubled.length}${doubled.length === 0 ? "" : ` (${doubled.join("; ")})`}`
    ],
    failedChecks: [...figures.failedChecks ?? [], ...diverged.map((d) => `owner's memory differs from Postgres: ${d}`),
      ...doubled.map((d) => `stored twice: ${d}`)
    ]
  }
}

const pauseShard = (index: number): FaultScenario["inject"] => async (world) => {
  const shard = world.cluster.shards[index]
  if (shard === undefined) throw new Error(`no shard ${index}`)
  shard.pause()
  await sleep(PAUSE_MS)
  shard.resume()
  return [`shard ${index + 1} paused ${PAUSE_MS / 1000} s (lease ${LEASE_SECONDS} s)`]
}

export const pauseScenarios: ReadonlyArray<FaultScenario> = [
  /** A shard process stopped (SIGSTOP) 15 s, past its 6-s lease, then woken: it must not write as an owner any more. */
  {
    name: "shard process paused 15 s (lease 6 s)",
    shards: 2,
    apis: 2,
    guilds: 8,
    env: { SHARD_LOCK_EXPIRATION_SECONDS: String(LEASE_SECONDS) },
    inject: pauseShard(0),
    afterwards: ownerMatchesPostgres
  }
]
