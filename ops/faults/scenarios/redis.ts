// Redis restarted under load: shard ownership, the gateway relay, presences and limits all live
// there. Both variants stop it for 10 s; the first saves its data, the second loses it.
import { setTimeout as sleep } from "node:timers/promises"
import type { FaultScenario, FaultWorld } from "../lib/scenario.ts"
import type { FaultFigures } from "../lib/verify.ts"

/** How long Redis stays down. */
export const REDIS_DOWN_MS = 10_000

/** How long an operator may wait for an answer while Redis is away (stats give up on Redis after 1.5 s, reload-all after 2 s). */
const OPERATOR_ANSWER_MS = 3_000

/** What the operators' calls were answered while Redis was away, and whether as they should be and in time. */
interface OutageSeen {
  seen?: string
  held?: boolean
}

/** An operator's call to the API process while Redis is away: its status, time and the start of its body. */
const operatorCall = async (world: FaultWorld, method: string, path: string, body?: unknown) => {
  const started = Date.now()
  const reply = await fetch(`${world.cluster.apis[0]?.base ?? ""}${path}`, {
    method,
    headers: { authorization: `Admin ${world.cluster.adminKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(OPERATOR_ANSWER_MS * 2)
  }).then(async (r) => ({ status: r.status, body: await r.text() }), (error: unknown) => ({ status: 0, body: String(error) }))
  return { ...reply, ms: Date.now() - started }
}

/**
 * `/admin/gateway/stats` while Redis is away: degraded, with what the API process knows, and
 * in time; and reload-all, which cannot reach the other processes, refused with a 503.
 */
const statsDuringOutage = async (world: FaultWorld): Promise<OutageSeen> => {
  // Together: in the short outage of npm test, one after the other would outlast Redis's absence.
  const [stats, reload] = await Promise.all([
    operatorCall(world, "GET", "/admin/gateway/stats"),
    operatorCall(world, "POST", "/admin/gateway/reload-all", { guild_ids: [] })
  ])
  const seen = `during the outage: gateway stats ${stats.status} in ${stats.ms} ms (${stats.body.slice(0, 100)}); ` +
    `reload-all ${reload.status} in ${reload.ms} ms`
  const held = stats.status === 200 && /"status":"degraded"/.test(stats.body) && stats.ms <= OPERATOR_ANSWER_MS &&
    reload.status === 503 && reload.ms <= OPERATOR_ANSWER_MS
  return { seen, held }
}

/** Stops Redis for `downMs` and starts it again; what the operators' calls were answered meanwhile lands in `outage`. */
const restart = (keepData: boolean, downMs: number, outage: OutageSeen) => async (world: FaultWorld) => {
  const before = await world.redis.keyCount()
  await world.redis.stop({ keepData })
  const stopped = Date.now()
  Object.assign(outage, await statsDuringOutage(world))
  await sleep(Math.max(0, downMs - (Date.now() - stopped)))
  await world.redis.start()
  const after = await world.redis.keyCount()
  return [`keys before ${before}, right after the restart ${after}`]
}

/** How many processes `/admin/gateway/stats` counts, once every one has published again (each does every 2 s). */
const statsProcesses = async (world: FaultWorld, expected: number) => {
  const deadline = Date.now() + 10_000
  let counted = -1
  while (Date.now() < deadline) {
    const reply = await fetch(`${world.cluster.apis[0]?.base ?? ""}/admin/gateway/stats`, {
      headers: { authorization: `Admin ${world.cluster.adminKey}` }
    }).then((r) => r.json(), () => undefined)
    const count: unknown = typeof reply === "object" && reply !== null ? Reflect.get(reply, "process_count") : undefined
    counted = typeof count === "number" ? count : -1
    if (counted === expected) return counted
    await sleep(500)
  }
  return counted
}

/**
 * What a Redis restart must leave of the operators' view: every living process's gateway
 * stats are published again after the restart (their publisher once died
 * with the first Redis error, and a process's figures were gone until it restarted), and
 * during the outage the stats answered at once, degraded, with what the API process knows
 * (they once failed with a 500 after ioredis gave the command up).
 */
const afterRestart = (outage: OutageSeen) => async (world: FaultWorld, figures: FaultFigures): Promise<FaultFigures> => {
  const processes = [...world.cluster.shards, ...world.cluster.apis]
  const dead = processes.filter((p) => figures.restartedByHand.includes(p.name))
  const counted = await statsProcesses(world, processes.length)
  const notes = [...figures.notes, outage.seen ?? "gateway stats not asked during the outage",
    `gateway stats count ${counted} of ${processes.length} processes after the restart`]
  const failedChecks = [
    ...figures.failedChecks ?? [],
    ...counted === processes.length - dead.length ? [] : [`gateway stats count ${counted} processes, not ${processes.length - dead.length}`],
    ...outage.held === true ? [] :
      [`during the outage, gateway stats did not answer "degraded" or reload-all 503, within ${OPERATOR_ANSWER_MS} ms each`]
  ]
  return { ...figures, notes, failedChecks }
}

/** The two variants, with Redis down for `downMs`. */
export const redisRestarts = (downMs: number): ReadonlyArray<FaultScenario> =>
  [true, false].map((keepData) => {
    const outage: OutageSeen = {}
    return {
      // Redis stopped with a save and started again with its data; or stopped without, and started empty.
      name: `Redis restarted (data ${keepData ? "kept" : "lost"}, down ${downMs / 1000} s)`,
      inject: restart(keepData, downMs, outage),
      afterwards: afterRestart(outage)
    }
  })

export const redisScenarios: ReadonlyArray<FaultScenario> = redisRestarts(REDIS_DOWN_MS)
