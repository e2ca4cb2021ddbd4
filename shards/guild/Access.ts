import { Effect } from "effect"
import { type Forbidden, missingAccess, missingPermissions } from "../../src/model/Errors.ts"
import type { AuditEntry } from "./Definitions.ts"
import { has } from "../../src/model/Permissions.ts"
import type { GuildState } from "./State.ts"
import { permissionsAt } from "./members/Timeouts.ts"

/** Fails with 403 MISSING_ACCESS unless `userId` is a member. */
export const requireMember = (state: GuildState, userId: string): Effect.Effect<void, Forbidden> =>
  state.members.has(userId) ? Effect.void : Effect.fail(missingAccess())

/**
 * Fails unless `userId` is a member holding every bit of `wanted` at guild
 * level at `now` (the write context's clock): a timed-out member holds only
 * VIEW_CHANNEL and READ_MESSAGE_HISTORY (Timeouts.ts).
 */
export const requirePermission = (
  state: GuildState,
  userId: string,
  wanted: bigint,
  now: number
): Effect.Effect<void, Forbidden> =>
  Effect.flatMap(requireMember(state, userId), () =>
    has(permissionsAt(state, userId, now), wanted) ? Effect.void : Effect.fail(missingPermissions()))

/** The audit-log changes of applying `patch` to `before`: one per key whose value differs. */
export const changesOf = <T extends object>(before: T, patch: Partial<T>): AuditEntry["changes"] =>
  Object.entries(patch).flatMap(([key, value]) => {
    const old: unknown = (before as Record<string, unknown>)[key]
    return JSON.stringify(old) === JSON.stringify(value) ? [] : [{ key, old_value: old ?? null, new_value: value ?? null }]
  })
