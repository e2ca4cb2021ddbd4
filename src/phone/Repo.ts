import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { sameBytes } from "../platform/Crypto.ts"

/** A new code was stored (send it), or the last one is too fresh to replace: wait this many seconds. */
export type Stored = { readonly stored: true } | { readonly stored: false; readonly waitSeconds: number }

const isUniqueViolation = (error: SqlError) => error.reason._tag === "UniqueViolation"

/**
 * Pending phone verifications (schema/0010_phone.sql) and the account's number
 * (users.phone, users.phone_verified_at). Each write that uses something up is
 * one atomic statement.
 */
export class PhoneRepo extends Context.Service<PhoneRepo, {
  /** The user who has `phone` on their account, other than `userId`. */
  readonly otherOwner: (userId: string, phone: string) => Effect.Effect<string | undefined>
  /** Replaces the user's pending code, unless the last one was sent less than `resendSeconds` ago. */
  readonly storeCode: (userId: string, phone: string, codeHash: Buffer, lifetimeSeconds: number, resendSeconds: number) => Effect.Effect<Stored>
  readonly dropCode: (userId: string) => Effect.Effect<void>
  /** True once for the right code of a live send to `phone`; a wrong guess counts against the code. */
  readonly useCode: (userId: string, phone: string, codeHash: Buffer | undefined, maxAttempts: number) => Effect.Effect<boolean>
  /** Puts the proven number on the account; false when another account has it. */
  readonly attach: (userId: string, phone: string) => Effect.Effect<boolean>
  /** Takes the number off the account, and SMS codes with it (they have nowhere to go). */
  readonly detach: (userId: string) => Effect.Effect<void>
}>()("guildhall/PhoneRepo") {
  static readonly layer = Layer.effect(
    PhoneRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return PhoneRepo.of({
        otherOwner: Effect.fn("PhoneRepo.otherOwner")((userId, phone) =>
          sql<{ id: string }>`SELECT id FROM users WHERE phone = ${phone} AND id <> ${userId}`.pipe(
            Effect.map((rows) => rows[0] === undefined ? undefined : String(rows[0].id)),
            Effect.orDie
          )),
        storeCode: Effect.fn("PhoneRepo.storeCode")(function*(userId, phone, codeHash, lifetimeSeconds, resendSeconds) {
          // One statement: a concurrent send within the resend delay finds the row fresh and stores nothing.
          const stored = yield* sql`
            INSERT INTO phone_verifications (user_id, phone, code_hash, expires_at)
            VALUES (${userId}, ${phone}, ${codeHash}, now() + make_interval(secs => ${lifetimeSeconds}))
            ON CONFLICT (user_id) DO UPDATE
            SET phone = EXCLUDED.phone, code_hash = EXCLUDED.code_hash, attempts = 0, sent_at = now(), expires_at = EXCLUDED.expires_at
            WHERE phone_verifications.sent_at <= now() - make_interval(secs => ${resendSeconds})
            RETURNING 1`
          if (stored.length === 1) return { stored: true } as const
          const rows = yield* sql<{ wait: number }>`
            SELECT GREATEST(0, EXTRACT(EPOCH FROM sent_at + make_interval(secs => ${resendSeconds}) - now()))::float8 AS wait
            FROM phone_verifications WHERE user_id = ${userId}`
          return { stored: false, waitSeconds: Math.max(1, Math.ceil(Number(rows[0]?.wait ?? resendSeconds))) } as const
        }, Effect.orDie),
        dropCode: Effect.fn("PhoneRepo.dropCode")((userId) =>
          sql`DELETE FROM phone_verifications WHERE user_id = ${userId}`.pipe(Effect.asVoid, Effect.orDie)),
        // The attempt is counted before the code is compared: parallel guesses cannot outrun the limit.
        useCode: Effect.fn("PhoneRepo.useCode")(function*(userId, phone, codeHash, maxAttempts) {
          const live = yield* sql<{ phone: string; code_hash: Uint8Array }>`
            UPDATE phone_verifications SET attempts = attempts + 1
            WHERE user_id = ${userId} AND expires_at > now() AND attempts < ${maxAttempts}
            RETURNING phone, code_hash`
          const stored = live[0]
          if (stored === undefined || codeHash === undefined || stored.phone !== phone) return false
          const storedHash = Buffer.from(stored.code_hash)
          if (!sameBytes(storedHash, codeHash)) return false
          const used = yield* sql`DELETE FROM phone_verifications WHERE user_id = ${userId} AND code_hash = ${storedHash} RETURNING 1`
          return used.length === 1
        }, Effect.orDie),
        attach: Effect.fn("PhoneRepo.attach")((userId, phone) =>
          sql`UPDATE users SET phone = ${phone}, phone_verified_at = now() WHERE id = ${userId}`.pipe(
            Effect.as(true),
            Effect.catchIf(isUniqueViolation, () => Effect.succeed(false)),
            Effect.orDie
          )),
        detach: Effect.fn("PhoneRepo.detach")((userId) =>
          sql.withTransaction(Effect.gen(function*() {
            yield* sql`UPDATE users SET phone = NULL, phone_verified_at = NULL WHERE id = ${userId}`
            yield* sql`UPDATE user_mfa SET sms_enabled_at = NULL WHERE user_id = ${userId}`
            yield* sql`DELETE FROM mfa_sms_codes WHERE user_id = ${userId}`
            yield* sql`DELETE FROM phone_verifications WHERE user_id = ${userId}`
          })).pipe(Effect.orDie))
      })
    })
  )
}
