import { Effect } from "effect"
import type { SqlClient, SqlError } from "effect/sql"

/**
 * The fencing tokens of one kind of actor in this process (schema/0045): the
 * epoch claimed when each actor was last loaded here, which its commits must
 * still hold. A process that stalled past its shard lease (a long pause, a
 * stop signal) and wakes up finds its commits refused once another process has
 * loaded the actor, rather than applying a write the caller has since retried
 * with the new owner.
 */
export interface Fences {
  /** Raises the actor's epoch and keeps it: call before reading its state. */
  readonly claim: (id: string) => Effect.Effect<void, SqlError.SqlError>
  /** The fence a commit of the actor checks. */
  readonly of: (id: string) => Fence
}

export interface Fence {
  readonly key: string
  readonly epoch: number
}

/** The SQLSTATE `actor_fence_held` raises. */
const FENCE_LOST = "GH001"

export const makeFences = (sql: SqlClient.SqlClient, kind: string): Fences => {
  const held = new Map<string, number>()
  const keyOf = (id: string) => `${kind}:${id}`
  return {
    claim: (id) =>
      sql<{ epoch: string }>`INSERT INTO actor_fences (entity_key, epoch) VALUES (${keyOf(id)}, 1)
        ON CONFLICT (entity_key) DO UPDATE SET epoch = actor_fences.epoch + 1 RETURNING epoch`.pipe(
        Effect.map((rows) => {
          held.set(id, Number(rows[0]?.epoch ?? 0))
        })
      ),
    of: (id) => ({ key: keyOf(id), epoch: held.get(id) ?? 0 })
  }
}

/**
 * A condition for a statement's WHERE: raises (and so aborts the statement) unless `fence` still holds.
 * As a sub-select it is checked once per statement (an InitPlan); called bare, the function (volatile:
 * it locks) ran once per row, 25 checks for a batch of 25 records.
 */
export const fenceHeld = (sql: SqlClient.SqlClient, fence: Fence) => sql`(SELECT actor_fence_held(${fence.key}, ${fence.epoch}::bigint))`

/** Whether a commit failed because another process has loaded the actor since. */
export const isFenceLost = (error: SqlError.SqlError): boolean => {
  const cause: unknown = error.reason.cause
  return typeof cause === "object" && cause !== null && "code" in cause && cause.code === FENCE_LOST
}
