import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../platform/Config.ts"
import { reloadInBatches } from "../admin/GuildReloader.ts"
import { Sessions } from "../auth/Sessions.ts"
import { Actors } from "../guilds/Actors.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { refreshAccountOrLog } from "../users/AccountRefresh.ts"
import { sweepEvery } from "../platform/Sweeps.ts"

/** Accounts one run deletes at most; the rest wait for the next run. */
const PER_RUN = 100

/**
 * Carries out the deletions whose grace period is over (POST /users/@me/delete,
 * or an operator's schedule). The spec shows no deleted-user shape, so the user
 * row goes, and with it, through the foreign keys, everything that is the
 * user's alone: sessions, credentials, MFA, tokens, memberships. A user who has
 * come to own a guild in the meantime is skipped (a guild needs its owner)
 * until that guild is transferred or gone.
 *
 * Each account is deleted in its own transaction holding its row
 * `FOR UPDATE SKIP LOCKED`, so every API process of a cluster may run this at
 * the same time and each account is deleted by exactly one of them.
 */
export const deleteDueAccounts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const sessions = yield* Sessions
  const actors = yield* Actors
  const userActors = yield* UserActors

  const deleteOne = sql.withTransaction(Effect.gen(function*() {
    const due = yield* sql<{ id: string }>`
      SELECT id FROM users u
      WHERE deletion_scheduled_at <= now() AND NOT EXISTS (SELECT 1 FROM guilds g WHERE g.owner_id = u.id)
      ORDER BY deletion_scheduled_at LIMIT 1
      FOR UPDATE SKIP LOCKED`
    const user = due[0]
    if (user === undefined) return undefined
    const memberships = yield* sql<{ guild_id: string }>`SELECT guild_id FROM guild_members WHERE user_id = ${user.id}`
    yield* sql`DELETE FROM users WHERE id = ${user.id}`
    return { userId: String(user.id), guildIds: memberships.map((m) => String(m.guild_id)) }
  })).pipe(Effect.orDie)

  let deleted = 0
  while (deleted < PER_RUN) {
    const done = yield* deleteOne
    if (done === undefined) break
    deleted++
    // The rows are gone; what remains are copies in memory: cached sessions, the user's actor
    // (finding no row, it drops its state) and the guilds' member lists.
    yield* sessions.revokeAllOf(done.userId)
    yield* refreshAccountOrLog(userActors, done.userId)
    if (done.guildIds.length > 0) yield* reloadInBatches(actors, done.guildIds)
    yield* Effect.logInfo("account deleted", done.userId)
  }
  return deleted
})

/** Runs `deleteDueAccounts` every `ACCOUNT_DELETION_SWEEP_SECONDS` in the API process, for as long as it lives. */
export const deletionJob = Layer.effectDiscard(
  Effect.gen(function*() {
    const { accountDeletionSweepSeconds } = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    const sessions = yield* Sessions
    const actors = yield* Actors
    const userActors = yield* UserActors
    const run = deleteDueAccounts.pipe(
      Effect.provideService(SqlClient.SqlClient, sql),
      Effect.provideService(Sessions, sessions),
      Effect.provideService(Actors, actors),
      Effect.provideService(UserActors, userActors)
    )
    yield* sweepEvery(run, accountDeletionSweepSeconds, "account deletion run")
  })
)
