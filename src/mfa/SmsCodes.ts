import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { BadRequest, TooManyRequests, Unavailable } from "../model/Errors.ts"
import { sameBytes, tokenHash } from "../platform/Crypto.ts"
import { Sms } from "../sms/Sms.ts"
import { newSmsCode, normalizeSixDigits } from "./Codes.ts"
import { MfaRepo } from "./Repo.ts"

/** What a code was sent for: a code sent to finish a login does not grant sudo mode, nor the reverse. */
export type SmsPurpose = "login" | "sudo"

const LIFETIME_SECONDS = 10 * 60
/** A new code replaces the last one, but not sooner than this: texts cost money and annoy. */
const RESEND_SECONDS = 30
/** Wrong guesses a code survives; after that a new one must be sent. */
const MAX_ATTEMPTS = 5

export const smsNotEnabled = () =>
  new BadRequest({ code: "TWO_FA_NOT_ENABLED", message: "SMS two-factor authentication is not enabled" })

/** 6-digit codes sent by SMS to the verified phone of a user who turned SMS on. */
export class SmsCodes extends Context.Service<SmsCodes, {
  readonly send: (userId: string, purpose: SmsPurpose) => Effect.Effect<void, BadRequest | TooManyRequests | Unavailable>
  /** True once for the right code of a live send; a wrong guess counts against the code. */
  readonly check: (userId: string, purpose: SmsPurpose, code: string) => Effect.Effect<boolean>
}>()("guildhall/SmsCodes") {
  static readonly layer = Layer.effect(
    SmsCodes,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* MfaRepo
      const sms = yield* Sms

      const send = Effect.fn("SmsCodes.send")(function*(userId: string, purpose: SmsPurpose) {
        const state = yield* repo.state(userId)
        if (!state.smsEnabled || state.totpSecret === null || state.verifiedPhone === null) return yield* smsNotEnabled()
        const phone = state.verifiedPhone
        const code = newSmsCode()
        // One statement: a concurrent send within the resend delay finds the row fresh and sends nothing.
        const stored = yield* sql<{ sent: number }>`
          INSERT INTO mfa_sms_codes (user_id, purpose, code_hash, expires_at)
          VALUES (${userId}, ${purpose}, ${tokenHash(code)}, now() + make_interval(secs => ${LIFETIME_SECONDS}))
          ON CONFLICT (user_id, purpose) DO UPDATE
          SET code_hash = EXCLUDED.code_hash, attempts = 0, sent_at = now(), expires_at = EXCLUDED.expires_at
          WHERE mfa_sms_codes.sent_at <= now() - make_interval(secs => ${RESEND_SECONDS})
          RETURNING 1 AS sent`.pipe(Effect.orDie)
        if (stored.length === 0) {
          const rows = yield* sql<{ wait: number }>`
            SELECT GREATEST(0, EXTRACT(EPOCH FROM sent_at + make_interval(secs => ${RESEND_SECONDS}) - now()))::float8 AS wait
            FROM mfa_sms_codes WHERE user_id = ${userId} AND purpose = ${purpose}`.pipe(Effect.orDie)
          return yield* new TooManyRequests({
            code: "RATE_LIMITED",
            message: "A code was sent moments ago; wait before asking for another",
            retry_after: Math.ceil(Number(rows[0]?.wait ?? RESEND_SECONDS)),
            global: false
          })
        }
        yield* sms.send(phone, `Your Guildhall verification code is ${code}. It expires in 10 minutes.`).pipe(
          Effect.tapError(() => sql`DELETE FROM mfa_sms_codes WHERE user_id = ${userId} AND purpose = ${purpose}`.pipe(Effect.orDie)),
          Effect.mapError(() =>
            new Unavailable({ code: "SMS_VERIFICATION_UNAVAILABLE", message: "The text could not be sent; try again later" }))
        )
      })

      /** The attempt is counted before the code is compared: parallel guesses cannot outrun the limit. */
      const check = Effect.fn("SmsCodes.check")(function*(userId: string, purpose: SmsPurpose, code: string) {
        const live = yield* sql<{ code_hash: Uint8Array }>`
          UPDATE mfa_sms_codes SET attempts = attempts + 1
          WHERE user_id = ${userId} AND purpose = ${purpose} AND expires_at > now() AND attempts < ${MAX_ATTEMPTS}
          RETURNING code_hash`
        const stored = live[0]
        const digits = normalizeSixDigits(code)
        if (stored === undefined || digits === undefined || !sameBytes(Buffer.from(stored.code_hash), tokenHash(digits))) return false
        const used = yield* sql`DELETE FROM mfa_sms_codes
                                WHERE user_id = ${userId} AND purpose = ${purpose} AND code_hash = ${Buffer.from(stored.code_hash)}
                                RETURNING 1`
        return used.length === 1
      }, Effect.orDie)

      return SmsCodes.of({ send, check })
    })
  )
}
