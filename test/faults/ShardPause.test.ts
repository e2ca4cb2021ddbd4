// A shard process paused past its lease and woken (ops/faults/scenarios/pause.ts), short: its
// guilds move to the other shard process, nothing acknowledged is lost or stored twice, and once
// it wakes the guilds' owner and Postgres agree (the woken process did not write as an owner).
import { describe, expect, it } from "@effect/vitest"
import { runScenario } from "../../ops/faults/lib/scenario.ts"
import { pauseScenarios } from "../../ops/faults/scenarios/pause.ts"

/**
 * Guilds are back within one lease (6 s) after the wake plus margin: the new owner took the shards
 * during the pause (lease 6 s + 1 s assignment refresh < 15 s), so the wake itself should cost
 * nothing; what remains is the clients' back-off from a 503 and a redelivery poll (2 s).
 */
const RECOVERY_BOUND_SECONDS = 8

describe("a shard process paused past its lease", () => {
  for (const scenario of pauseScenarios) {
    it(scenario.name, { timeout: 85_000 }, async () => {
      const f = await runScenario(scenario, { warmupMs: 3_000, recoveryLimitMs: 20_000 })
      expect(f.acknowledged).toBeGreaterThan(0)
      expect(f.lost).toBe(0)
      expect(f.appliedTwice).toBe(0)
      expect(f.eventsLost, f.notes.join("\n")).toBe(0)
      expect(f.serverErrors).toBe(0)
      expect(f.hangs).toBe(0)
      expect(f.restartedByHand).toEqual([])
      expect(f.recoverySeconds).toBeLessThan(RECOVERY_BOUND_SECONDS)
      expect(f.failedChecks ?? []).toEqual([])
    })
  }
})
