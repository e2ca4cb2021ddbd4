import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { StoredSettings } from "../../src/model/Settings.ts"
import type { Account } from "./AccountView.ts"
import type { GuildId } from "../../src/model/Ids.ts"
import { isoTimestamp } from "../../src/platform/Timestamps.ts"
import { makeFences } from "../actors/Fences.ts"
import { commitDecided, operationResults } from "../actors/Operations.ts"
import type { DecidedWrite } from "../actors/WriteBatches.ts"
import type { Executed } from "./Definitions.ts"
import { type AccountChange, logChanges } from "./ChangeLog.ts"
import { loadRelationships } from "./RelationshipRows.ts"
import { loadLists } from "./ListsRepo.ts"
import type { UserState } from "./State.ts"

const decodeSettings = Schema.decodeUnknownEffect(StoredSettings)

/** The account's columns: every one the private user shows, and no secret. */
const ACCOUNT_COLUMNS = `id::text AS id, username, discriminator, global_name, email, email_verified, date_of_birth::text AS date_of_birth,
  avatar, banner, bio, pronouns, accent_color, flags::text AS flags, acls, traits, bot, created_at, email_bounced, phone,
  phone_verified_at, password_changed_at, premium_flags, mention_flags, timezone, timezone_privacy_flags, theme, locale, system`

const isoOrNull = (value: Date | string | null | undefined) => (value === null || value === undefined ? null : isoTimestamp(value))

/**
 * The row as a literal of fixed shape: the driver builds rows key by key, which
 * leaves V8 a dictionary of them, and an idle actor keeps this one for as long as
 * it lives. Timestamps are kept as their ISO text.
 */
const compactAccount = (row: Account): Account => ({
  id: row.id,
  username: row.username,
  discriminator: row.discriminator,
  global_name: row.global_name,
  email: row.email,
  email_verified: row.email_verified,
  date_of_birth: row.date_of_birth,
  avatar: row.avatar,
  banner: row.banner,
  bio: row.bio,
  pronouns: row.pronouns,
  accent_color: row.accent_color,
  flags: row.flags,
  acls: row.acls,
  traits: row.traits,
  bot: row.bot,
  created_at: isoTimestamp(row.created_at),
  email_bounced: row.email_bounced ?? false,
  phone: row.phone ?? null,
  phone_verified_at: isoOrNull(row.phone_verified_at),
  password_changed_at: isoOrNull(row.password_changed_at),
  premium_flags: row.premium_flags ?? 0,
  mention_flags: row.mention_flags ?? 0,
  timezone: row.timezone ?? null,
  timezone_privacy_flags: row.timezone_privacy_flags ?? 0,
  theme: row.theme ?? "system",
  locale: row.locale ?? "en-US",
  system: row.system ?? false
})

/** What the actor knows of the account from outside its own writes: the row, the MFA methods, a pending self-deletion. */
export interface AccountFacts {
  readonly account: Account
  readonly authenticatorTypes: ReadonlyArray<number>
  readonly pendingDeletion: UserState["pendingDeletion"]
}

/** The Postgres side of a user's actor: its state, and its writes with their operation records. */
export class UserRepo extends Context.Service<UserRepo, {
  readonly load: (userId: string) => Effect.Effect<UserState | undefined>
  /** The account as Postgres has it now (Refresh). */
  readonly account: (userId: string) => Effect.Effect<AccountFacts | undefined>
  readonly operationResults: (operationIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, unknown>>
  /** Writes' statements and operation records, in order, in one transaction. */
  readonly commitWrites: (userId: string, writes: ReadonlyArray<DecidedWrite<Executed>>) => Effect.Effect<void, SqlError.SqlError>
  /** Logs changes a flow outside the actor made (Refresh); a failure is logged, never raised: the change stands. */
  readonly logChanges: (userId: string, actorId: string, changes: ReadonlyArray<AccountChange>) => Effect.Effect<void>
}>()("guildhall/UserRepo") {
  static readonly layer = Layer.effect(
    UserRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const account = Effect.fn("UserRepo.account")(function*(userId: string) {
        const [row] = yield* sql<Account>`SELECT ${sql.literal(ACCOUNT_COLUMNS)} FROM users WHERE id = ${userId}`
        if (row === undefined) return undefined
        const [mfa] = yield* sql<{ totp: boolean; webauthn: boolean }>`
          SELECT EXISTS (SELECT 1 FROM user_mfa WHERE user_id = ${userId} AND totp_secret IS NOT NULL) AS totp,
                 EXISTS (SELECT 1 FROM webauthn_credentials WHERE user_id = ${userId}) AS webauthn`
        const [job] = yield* sql<{ scheduled_at: Date; channel_count: number; message_count: number }>`
          SELECT scheduled_at, channel_count, message_count FROM message_deletion_jobs WHERE user_id = ${userId}`
        return {
          account: compactAccount(row),
          authenticatorTypes: [...(mfa?.totp === true ? [0] : []), ...(mfa?.webauthn === true ? [2] : [])],
          pendingDeletion: job === undefined
            ? null
            : { scheduled_at: isoTimestamp(job.scheduled_at), channel_count: job.channel_count, message_count: job.message_count }
        }
      }, Effect.orDie)

      const fences = makeFences(sql, "user")
      const load = Effect.fn("UserRepo.load")(function*(userId: string) {
        yield* fences.claim(userId)
        const facts = yield* account(userId)
        if (facts === undefined) return undefined
        const [settings] = yield* sql<{ data: unknown }>`SELECT data FROM user_settings WHERE user_id = ${userId}`
        // The driver may hand jsonb back as text; what is stored was checked on the way in.
        const data: unknown = typeof settings?.data === "string" ? JSON.parse(settings.data) : settings?.data ?? {}
        const notes = yield* sql<{ target_id: string; note: string }>`
          SELECT target_id::text AS target_id, note FROM user_notes WHERE user_id = ${userId}`
        const guilds = yield* sql<{ guild_id: GuildId }>`SELECT guild_id::text AS guild_id FROM guild_members WHERE user_id = ${userId}`
        return {
          ...facts,
          settings: yield* decodeSettings(data),
          notes: new Map(notes.map((n) => [n.target_id, n.note])),
          guilds: new Set(guilds.map((g) => g.guild_id)),
          relationships: yield* loadRelationships(sql, userId),
          ...(yield* loadLists(sql, userId))
        }
      }, Effect.orDie)

      const commitWrites = (id: string, writes: ReadonlyArray<DecidedWrite<Executed>>) =>
        commitDecided(sql, id, writes, fences.of(id))

      return UserRepo.of({
        load,
        account,
        operationResults: Effect.fn("UserRepo.operationResults")((ids) => operationResults(sql, ids)),
        commitWrites,
        logChanges: Effect.fn("UserRepo.logChanges")((userId, actorId, changes) =>
          logChanges(userId, actorId, changes, new Date()).pipe(
            Effect.provideService(SqlClient.SqlClient, sql),
            Effect.catchCause((cause) => Effect.logWarning("the account change log missed a change", userId, cause))
          ))
      })
    })
  )
}
