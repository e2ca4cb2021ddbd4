import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../platform/Config.ts"
import { Sessions } from "../auth/Sessions.ts"
import { BadRequest } from "../model/Errors.ts"

const ownsGuilds = () =>
  new BadRequest({ code: "USER_OWNS_GUILDS", message: "Transfer or delete the guilds you own before deleting your account" })

/**
 * Disabling and deleting one's own account. Both end every session, so the
 * account is out of use at once; a later login (src/auth/LoginCompletion.ts)
 * re-enables it and cancels a deletion still in its grace period. The deletion
 * itself is carried out by the job of Deletions.ts once the grace period is over.
 * The user's actor holds neither `disabled_at` nor `deletion_scheduled_at`
 * (shards/user/Repo.ts), so these changes leave nothing of it stale; the
 * deletion does, and the job makes the actor drop the account.
 */
export class AccountLifecycle extends Context.Service<AccountLifecycle, {
  readonly disable: (userId: string) => Effect.Effect<void>
  /** Refused while the user owns a guild: a guild cannot be left without its owner. */
  readonly scheduleDeletion: (userId: string) => Effect.Effect<void, BadRequest>
}>()("guildhall/AccountLifecycle") {
  static readonly layer = Layer.effect(
    AccountLifecycle,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sessions = yield* Sessions
      const { accountDeletionGraceDays } = yield* AppConfig

      const disable = Effect.fn("AccountLifecycle.disable")(function*(userId: string) {
        yield* sql`UPDATE users SET disabled_at = now() WHERE id = ${userId}`.pipe(Effect.orDie)
        yield* sessions.revokeAllOf(userId)
      })

      const scheduleDeletion = Effect.fn("AccountLifecycle.scheduleDeletion")(function*(userId: string) {
        // Someone may still hand this user a guild during the grace period: the job skips owners too.
        const scheduled = yield* sql<{ id: string }>`
          UPDATE users SET deletion_scheduled_at = now() + make_interval(days => ${accountDeletionGraceDays})
          WHERE id = ${userId} AND NOT EXISTS (SELECT 1 FROM guilds WHERE owner_id = ${userId})
          RETURNING id`.pipe(Effect.orDie)
        if (scheduled.length === 0) return yield* ownsGuilds()
        yield* sessions.revokeAllOf(userId)
      })

      return AccountLifecycle.of({ disable, scheduleDeletion })
    })
  )
}
