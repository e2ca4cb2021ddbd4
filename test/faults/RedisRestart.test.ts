// Redis restarted under load, the short version of ops/faults/scenarios/redis.ts: each variant
// runs the whole fault (own Redis, own Postgres, 2 shards, 1 API, 4 guilds with gateway sessions)
// with a short warm-up and a 3-s outage, and every figure must hold.
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { ACTOR_CALL_TIMEOUT_MS, runScenario } from "../../ops/faults/lib/scenario.ts"
import type { FaultFigures } from "../../ops/faults/lib/verify.ts"
import { redisRestarts } from "../../ops/faults/scenarios/redis.ts"

/**
 * Every guild answers again within this of Redis answering: ioredis reconnects within its
 * 2-s backoff cap, a shard whose ownership was lost with the data takes it again within one
 * 6-s lease, and a call caught in between fails after ACTOR_CALL_TIMEOUT_MS; with a margin.
 */
const RECOVERY_BOUND_SECONDS = 2 + 6 + ACTOR_CALL_TIMEOUT_MS / 1000 + 2

const held = (f: FaultFigures) => {
  const figures = JSON.stringify(f)
  assert.isAbove(f.acknowledged, 0, figures)
  assert.strictEqual(f.lost, 0, figures)
  assert.strictEqual(f.appliedTwice, 0, figures)
  assert.strictEqual(f.eventsLost, 0, figures)
  assert.strictEqual(f.serverErrors, 0, figures)
  assert.strictEqual(f.hangs, 0, figures)
  assert.deepStrictEqual(f.restartedByHand, [], figures)
  assert.deepStrictEqual(f.failedChecks ?? [], [], figures)
  assert.isTrue(Number.isFinite(f.recoverySeconds), figures)
  assert.isAtMost(f.recoverySeconds, RECOVERY_BOUND_SECONDS, figures)
}

const [kept, lost] = redisRestarts(3_000)

for (const scenario of [kept, lost]) {
  if (scenario === undefined) continue
  it.live(`${scenario.name}: nothing lost or doubled, no 500, no hang, sessions told, every guild back`, () =>
    Effect.promise(() => runScenario({ ...scenario, guilds: 4 }, { warmupMs: 2_000, recoveryLimitMs: 30_000 })).pipe(Effect.map(held)),
    { timeout: 120_000 })
}
