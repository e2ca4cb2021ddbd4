import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { SudoFields } from "../auth/Sudo.ts"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"

/**
 * PhoneNumberType: E.164, `+` and 8 to 15 digits, the first not 0. The
 * reference's pattern allows 2 digits; no real number is that short, and a text
 * to one would only fail at the provider.
 */
export const PhoneNumber = Schema.String.check(
  Schema.isPattern(/^\+[1-9]\d{7,14}$/, { message: "PHONE_NUMBER_INVALID_FORMAT: Expected an E.164 phone number such as +14155550123" })
)
/** A 6-digit code as typed; the service reads spaces. */
const Code = Schema.String.check(Schema.isMaxLength(32))
/** Our phone tokens are 43 characters; the cap only keeps junk out. */
const PhoneToken = Schema.String.check(Schema.isMaxLength(256))

export const PhoneSendVerificationRequest = Schema.Struct({
  phone: PhoneNumber,
  // The reference's inbound challenge (the user texts us) needs a number of ours; codes go out by SMS.
  channel: Schema.optional(Schema.Literals(["sms", "inbound_challenge"]))
})
export const PhoneSendVerificationResponse = Schema.Struct({ channel: Schema.Literal("sms") })
export const PhoneVerifyRequest = Schema.Struct({ phone: PhoneNumber, code: Code })
/** The reference's `{verified: true}`, plus the token POST /users/@me/phone takes to put the number on the account. */
export const PhoneVerifyResponse = Schema.Struct({ verified: Schema.Literal(true), phone_token: Schema.String })
export const PhoneAddRequest = Schema.Struct({ phone_token: PhoneToken, ...SudoFields })
/** SudoVerificationSchema; without a body, the sudo token header has to be the proof. */
export const PhoneRemoveRequest = [Schema.Struct(SudoFields), Schema.Null] as const

const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `phone.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

/**
 * The account's phone number: a code is texted to it (send-verification), the
 * code proves it (verify, answering a phone token), and the token puts it on
 * the account under sudo mode. Removing it needs sudo mode too.
 */
export class PhoneApi extends HttpApiGroup.make("phone").add(
  HttpApiEndpoint.post("sendVerification", "/users/@me/phone/send-verification", {
    payload: PhoneSendVerificationRequest,
    success: PhoneSendVerificationResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("send-verification", 5, 300)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("verify", "/users/@me/phone/verify", {
    payload: PhoneVerifyRequest,
    success: PhoneVerifyResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("verify", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("add", "/users/@me/phone", {
    payload: PhoneAddRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("add", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.delete("remove", "/users/@me/phone", {
    payload: PhoneRemoveRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("remove", 10, 60)).middleware(RateLimit).middleware(UserAuthentication)
) {}
