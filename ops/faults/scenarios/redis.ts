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

/** A process that died by itself: the end of its output, in the notes, to say why. */
const whyDead = async (world: FaultWorld, figures: FaultFigures): Promise<FaultFigures> => {
  const dead = [...world.cluster.shards, ...world.cluster.apis].filter((p) => figures.restartedByHand.includes(p.name))
  return dead.length === 0 ? figures : { ...figures, notes: [...figures.notes, ...dead.map((p) => `${p.name} died: ${p.output().slice(-3_000)}`)] }
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
