// Postgres fails under the load: the test's own cluster is restarted, and every connection is
// killed a few times in a row. Writes must fail with a 503, the processes reconnect by
// themselves, and afterwards what the actors answer must be what Postgres holds: an actor whose
// in-memory state kept a write whose commit failed would show a message the database lacks.
import { setTimeout as sleep } from "node:timers/promises"
import { Effect, Redacted } from "effect"
import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlClient } from "effect/sql"
import type { FaultScenario, FaultWorld } from "../lib/scenario.ts"
import type { FaultFigures } from "../lib/verify.ts"

const newestStored = (databaseUrl: string, channelId: string) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ id: string }>`
        SELECT id::text AS id FROM messages WHERE channel_id = ${channelId} ORDER BY id DESC LIMIT 100`
      return rows.map((r) => r.id)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl) })), Effect.scoped)
  )

const newestServed = async (base: string, token: string, channelId: string): Promise<ReadonlyArray<string>> => {
  const reply = await fetch(`${base}/channels/${channelId}/messages?limit=100`, { headers: { authorization: token } })
  const body: unknown = await reply.json()
  if (!reply.ok || !Array.isArray(body)) throw new Error(`GET messages: ${reply.status}`)
  return body.map((m: unknown) => typeof m === "object" && m !== null && "id" in m ? String(m.id) : "")
}

/** Every guild's newest 100 messages as the API serves them equal the rows Postgres holds; a mismatch is a note and counts as lost. */
const actorsMatchPostgres = async (world: FaultWorld, figures: FaultFigures): Promise<FaultFigures> => {
  const base = world.cluster.apis[0]?.base ?? ""
  let diverged = 0
  for (const guild of world.guilds) {
    const [served, stored] = await Promise.all([
      newestServed(base, guild.token, guild.channelId),
      newestStored(world.databaseUrl, guild.channelId)
    ])
    const missing = served.filter((id) => !stored.includes(id)).length + stored.filter((id) => !served.includes(id)).length
    diverged += missing
  }
  return {
    ...figures,
    lost: figures.lost + diverged,
    notes: [...figures.notes, `actors vs Postgres: ${diverged} messages differ over ${world.guilds.length} guilds`]
  }
}

export const postgresScenarios: ReadonlyArray<FaultScenario> = [
  /** Postgres stopped (fast shutdown: connections closed, open transactions rolled back) for 10 s, then started again. */
  {
    name: "Postgres restarted (down 10 s)",
    inject: async ({ postgres }) => {
      await postgres.stop()
      await sleep(10_000)
      await postgres.start()
    },
    afterwards: actorsMatchPostgres
  },
  /** Every client connection killed with pg_terminate_backend, three times 1.5 s apart, under the load. */
  {
    name: "Postgres connection storm (3×)",
    inject: async ({ postgres }) => {
      const killed: Array<number> = []
      for (let i = 0; i < 3; i++) {
        killed.push(await postgres.terminateConnections())
        await sleep(1_500)
      }
      return [`connections terminated: ${killed.join(", ")}`]
    },
    afterwards: actorsMatchPostgres
  }
]
