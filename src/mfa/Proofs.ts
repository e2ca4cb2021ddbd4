import { Context, Effect, Layer, Schema } from "effect"

/** The MFA fields a request may carry to prove it is the account holder (sudo mode, guild deletion). */
export const MfaProofFields = {
  mfa_method: Schema.optionalKey(Schema.Literals(["totp", "sms", "webauthn"])),
  mfa_code: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(64))),
  webauthn_challenge: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1024))),
  webauthn_response: Schema.optional(Schema.Unknown)
}
const MfaProof = Schema.Struct(MfaProofFields)
export type MfaProof = typeof MfaProof.Type

/**
 * What the account flows ask of MFA: whether a user has it, and whether a
 * proof is valid. A valid TOTP or SMS code is used up by the check.
 */
export interface MfaMethods {
  readonly totp: boolean
  readonly sms: boolean
  readonly webauthn: boolean
  /** The verified phone, masked (`***-***-1234`), when SMS is on. */
  readonly phoneHint: string | null
}

export class MfaProofs extends Context.Service<MfaProofs, {
  readonly methods: (userId: string) => Effect.Effect<MfaMethods>
  readonly hasMfa: (userId: string) => Effect.Effect<boolean>
  readonly verify: (userId: string, proof: MfaProof) => Effect.Effect<boolean>
}>()("guildhall/MfaProofs") {
  /** Before any MFA method can be enrolled nobody has one, and no proof is valid. */
  static readonly layerNone = Layer.succeed(MfaProofs, MfaProofs.of({
    methods: Effect.fn("MfaProofs.methods")(() => Effect.succeed({ totp: false, sms: false, webauthn: false, phoneHint: null })),
    hasMfa: Effect.fn("MfaProofs.hasMfa")(() => Effect.succeed(false)),
    verify: Effect.fn("MfaProofs.verify")(() => Effect.succeed(false))
  }))
}
