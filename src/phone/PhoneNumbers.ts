import { Context, Effect, Layer } from "effect"
import { OneTimeTokens } from "../auth/OneTimeTokens.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { BadRequest, type Forbidden, invalidField, TooManyRequests, Unavailable } from "../model/Errors.ts"
import { phoneBanned } from "../admin/bans/Refusals.ts"
import { BansRepo } from "../admin/bans/Repo.ts"
import { newSmsCode, normalizeSixDigits } from "../mfa/Codes.ts"
import { tokenHash } from "../platform/Crypto.ts"
import { Sms } from "../sms/Sms.ts"
import { holdAccount, refreshAccount } from "../users/AccountRefresh.ts"
import { PhoneRepo } from "./Repo.ts"

const CODE_LIFETIME_SECONDS = 10 * 60
/** A new code replaces the last one, but not sooner than this: texts cost money and annoy. */
const RESEND_SECONDS = 30
/** Wrong guesses a code survives; after that a new one must be sent. */
const MAX_ATTEMPTS = 5
/** How long the proof of a verified number waits for POST /users/@me/phone (a sudo prompt may come between). */
const PHONE_TOKEN_TTL = "10 minutes"

const phoneTaken = () => new BadRequest({ code: "PHONE_ALREADY_USED", message: "This phone number is already used by another account" })
const badCode = () =>
  new BadRequest({ code: "INVALID_PHONE_VERIFICATION_CODE", message: "The code is wrong or has expired; ask for a new one" })
const badToken = () =>
  invalidField("phone_token", "INVALID_OR_EXPIRED_VERIFICATION_TOKEN", "This phone verification has expired or was used; verify the number again")

/**
 * The account's phone number. A 6-digit code is texted to the number
 * (`send`), the code proves the number and gives a phone token (`verify`), the
 * token puts the number on the account (`add`; the handler asks for sudo mode
 * first). The token and the code are bound to the user and to the number they
 * were issued for. The number and whether it is verified show on the user's
 * own views: after `add` and `remove` the user's actor reads them again.
 */
export class PhoneNumbers extends Context.Service<PhoneNumbers, {
  readonly send: (userId: string, phone: string) => Effect.Effect<void, BadRequest | Forbidden | TooManyRequests | Unavailable>
  readonly verify: (userId: string, phone: string, code: string) => Effect.Effect<string, BadRequest>
  readonly add: (userId: string, phoneToken: string) => Effect.Effect<void, BadRequest | Forbidden | Unavailable>
  /** Takes the number off the account; SMS two-factor codes stop with it. */
  readonly remove: (userId: string) => Effect.Effect<void, Unavailable>
}>()("guildhall/PhoneNumbers") {
  static readonly layer = Layer.effect(
    PhoneNumbers,
    Effect.gen(function*() {
      const repo = yield* PhoneRepo
      const sms = yield* Sms
      const tokens = yield* OneTimeTokens
      const userActors = yield* UserActors
      const bans = yield* BansRepo

      const send = Effect.fn("PhoneNumbers.send")(function*(userId: string, phone: string) {
        // A banned number is told before anything is texted to it.
        if (yield* bans.phoneBanned(phone)) return yield* phoneBanned()
        if ((yield* repo.otherOwner(userId, phone)) !== undefined) return yield* phoneTaken()
        const code = newSmsCode()
        const stored = yield* repo.storeCode(userId, phone, tokenHash(code), CODE_LIFETIME_SECONDS, RESEND_SECONDS)
        if (!stored.stored) {
          return yield* new TooManyRequests({
            code: "RATE_LIMITED",
            message: "A code was sent moments ago; wait before asking for another",
            retry_after: stored.waitSeconds,
            global: false
          })
        }
        yield* sms.send(phone, `Your Guildhall phone verification code is ${code}. It expires in 10 minutes.`).pipe(
          // Nothing was sent: the next try must not wait for the resend delay.
          Effect.tapError(() => repo.dropCode(userId)),
          Effect.mapError(() => new Unavailable({ code: "SMS_VERIFICATION_UNAVAILABLE", message: "The text could not be sent; try again later" }))
        )
      })

      const verify = Effect.fn("PhoneNumbers.verify")(function*(userId: string, phone: string, code: string) {
        const digits = normalizeSixDigits(code)
        if (!(yield* repo.useCode(userId, phone, digits === undefined ? undefined : tokenHash(digits), MAX_ATTEMPTS))) {
          return yield* badCode()
        }
        return yield* tokens.issue("phone_verification", userId, PHONE_TOKEN_TTL, { phone })
      })

      const add = Effect.fn("PhoneNumbers.add")(function*(userId: string, phoneToken: string) {
        // Read before use: another account presenting the token must not use it up.
        const held = yield* tokens.peek("phone_verification", phoneToken)
        if (held?.userId !== userId) return yield* badToken()
        const redeemed = yield* tokens.redeem("phone_verification", phoneToken)
        const phone = redeemed?.data.phone
        if (redeemed?.userId !== userId || typeof phone !== "string") return yield* badToken()
        if (yield* bans.phoneBanned(phone)) return yield* phoneBanned()
        yield* holdAccount(userActors, userId)
        if (!(yield* repo.attach(userId, phone))) return yield* phoneTaken()
        yield* refreshAccount(userActors, userId)
      })

      return PhoneNumbers.of({
        send,
        verify,
        add,
        remove: Effect.fn("PhoneNumbers.remove")((userId) => holdAccount(userActors, userId).pipe(Effect.andThen(repo.detach(userId)), Effect.andThen(refreshAccount(userActors, userId))))
      })
    })
  )
}
