// Redis restarted under load: shard ownership, the gateway relay, presences and limits all live
// there. Both variants stop it for 10 s; the first saves its data, the second loses it.
import { setTimeout as sleep } from "node:timers/promises"
import type { FaultScenario, FaultWorld } from "../lib/scenario.ts"
import type { FaultFigures } from "../lib/verify.ts"

/** How long Redis stays down. */
export const REDIS_DOWN_MS = 10_000

const restart = (keepData: boolean, downMs: number) => async (world: FaultWorld) => {
  const before = await world.redis.keyCount()
  await world.redis.stop({ keepData })
  await sleep(downMs)
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
 * A process that died by itself: the end of its output, in the notes, to say why. And every
 * process's gateway stats are published again after the restart (their publisher once died
 * with the first Redis error, and a process's figures were gone until it restarted).
 */
const whyDead = async (world: FaultWorld, figures: FaultFigures): Promise<FaultFigures> => {
  const processes = [...world.cluster.shards, ...world.cluster.apis]
  const dead = processes.filter((p) => figures.restartedByHand.includes(p.name))
  const counted = await statsProcesses(world, processes.length)
  const notes = [...figures.notes, `gateway stats count ${counted} of ${processes.length} processes after the restart`,
    ...dead.map((p) => `${p.name} died: ${p.output().slice(-3_000)}`)]
  const failedChecks = counted === processes.length - dead.length ? figures.failedChecks ?? [] :
    [...figures.failedChecks ?? [], `gateway stats count ${counted} processes, not ${processes.length - dead.length}`]
  return { ...figures, notes, failedChecks }
}

/** The two variants, with Redis down for `downMs`. */
export const redisRestarts = (downMs: number): ReadonlyArray<FaultScenario> => [
  {
    /** Redis stopped with a save, down for a while, started again with its data. */
    name: `Redis restarted (data kept, down ${downMs / 1000} s)`,
    inject: restart(true, downMs),
    afterwards: whyDead
  },
  {
    /** Redis stopped without saving, down for a while, started again empty. */
    name: `Redis restarted (data lost, down ${downMs / 1000} s)`,
    inject: restart(false, downMs),
    afterwards: whyDead
  }
]

export const redisScenarios: ReadonlyArray<FaultScenario> = redisRestarts(REDIS_DOWN_MS)
