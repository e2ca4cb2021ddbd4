import { Effect } from "effect"
import { type Forbidden, missingAccess, missingPermissions } from "../../src/http/Errors.ts"
import type { AuditEntry } from "./Operations.ts"
import { has } from "./Permissions.ts"
import { guildPermissions, type GuildState } from "./State.ts"

/** Fails with 403 MISSING_ACCESS unless `userId` is a member. */
export const requireMember = (state: GuildState, userId: string): Effect.Effect<void, Forbidden> =>
  state.members.has(userId) ? Effect.void : Effect.fail(missingAccess())

/** Fails unless `userId` is a member holding every bit of `wanted` at guild level. */
export const requirePermission = (state: GuildState, userId: string, wanted: bigint): Effect.Effect<void, Forbidden> =>
  Effect.flatMap(requireMember(state, userId), () =>
    has(guildPermissions(state, userId), wanted) ? Effect.void : Effect.fail(missingPermissions()))

/** The audit-log changes of applying `patch` to `before`: one per key whose value differs. */
export const changesOf = <T extends object>(before: T, patch: Partial<T>): AuditEntry["changes"] =>
  Object.entries(patch).flatMap(([key, value]) => {
    const old: unknown = (before as Record<string, unknown>)[key]
    return JSON.stringify(old) === JSON.stringify(value) ? [] : [{ key, old_value: old ?? null, new_value: value ?? null }]
  })
