// An API process dies (SIGKILL) under the load, with two of them: its HTTP clients move to the
// other one, and its gateway sessions, which lived only in its memory, RESUME there and must be
// told op 9 (invalid session) and IDENTIFY again, never answered RESUMED with events missing.
import { setTimeout as sleep } from "node:timers/promises"
import type { FaultScenario } from "../lib/scenario.ts"

const DOWN_MS = 8_000

export const apiKillScenarios: ReadonlyArray<FaultScenario> = [
  /** One of two API processes killed (SIGKILL) and left dead: clients and sessions carry on on the other. */
  {
    name: "API process killed (SIGKILL), 1 of 2",
    apis: 2,
    inject: async (world) => {
      const victim = world.cluster.apis[0]
      if (victim === undefined) throw new Error("no API process")
      await victim.stop("SIGKILL")
      await sleep(DOWN_MS)
      return [`${victim.name} killed and not restarted; ${DOWN_MS / 1000} s on the other API`]
    },
    afterwards: async (world, figures) => {
      // Sessions 0, 2, 4, ... lived on the killed process: each must have been told to IDENTIFY again.
      const orphans = world.sessions.records.filter((r) => r.guild % 2 === 0)
      const told = orphans.filter((r) => r.reidentifies > 0).length
      const notes = [...figures.notes, `${told}/${orphans.length} sessions of the killed API told op 9 and re-identified`]
      return told === orphans.length
        ? { ...figures, notes }
        : { ...figures, notes, eventsLost: figures.eventsLost + orphans.length - told }
    }
  }
]
