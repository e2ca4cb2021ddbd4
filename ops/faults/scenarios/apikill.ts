// An API process dies (SIGKILL) under the load, with two of them: its HTTP clients move to the
// other one, and its gateway sessions, which lived only in its memory, RESUME there and must be
// told op 9 (invalid session) and IDENTIFY again, never answered RESUMED with events missing.
import { setTimeout as sleep } from "node:timers/promises"
import type { FaultScenario } from "../lib/scenario.ts"
import type { SessionRecord } from "../lib/sessions.ts"

const DOWN_MS = 8_000

/** One of two API processes killed (SIGKILL) and left dead: clients and sessions carry on on the other. */
const killOneOfTwo = (): FaultScenario => {
  // The sessions connected to the victim when it was killed, not those it was given at the start:
  // a session asked to reconnect (op 7) before the fault has moved to the other process.
  let orphans: ReadonlyArray<SessionRecord> = []
  return {
    name: "API process killed (SIGKILL), 1 of 2",
    apis: 2,
    inject: async (world) => {
      const victim = world.cluster.apis[0]
      if (victim === undefined) throw new Error("no API process")
      orphans = world.sessions.records.filter((r) => r.api === 0)
      await victim.stop("SIGKILL")
      await sleep(DOWN_MS)
      return [`${victim.name} killed and not restarted; ${DOWN_MS / 1000} s on the other API`]
    },
    afterwards: async (world, figures) => {
      // Each session of the killed process must have been told to IDENTIFY again.
      const told = orphans.filter((r) => r.reidentifies > 0).length
      const asked = world.sessions.records.reduce((n, r) => n + r.reconnectsAsked, 0)
      const untold = orphans.filter((r) => r.reidentifies === 0).map((r) =>
        `session of guild ${r.guild} not told: now on API ${r.api ?? "none"}, ${r.connects} connections, ${r.resumes} resumed, ` +
        `last frame ${((Date.now() - r.lastFrameAt) / 1000).toFixed(1)} s ago`
      )
      const notes = [
        ...figures.notes,
        `${told}/${orphans.length} sessions of the killed API told op 9 and re-identified (${asked} op 7 to all sessions in the run)`,
        ...untold
      ]
      const failedChecks = orphans.length > 0 ? figures.failedChecks ?? [] :
        [...figures.failedChecks ?? [], "no session was connected to the killed API process"]
      return told === orphans.length
        ? { ...figures, notes, failedChecks }
        : { ...figures, notes, failedChecks, eventsLost: figures.eventsLost + orphans.length - told }
    }
  }
}

export const apiKillScenarios: ReadonlyArray<FaultScenario> = [killOneOfTwo()]
