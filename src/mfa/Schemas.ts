import { Schema } from "effect"
import { SudoFields } from "../auth/Sudo.ts"
import { BoundedText } from "../model/Common.ts"

/** A base64url field of a WebAuthn response; the cap keeps junk out (attestations are a few KiB). */
const Base64Url = (max: number) =>
  Schema.String.check(
    Schema.isMaxLength(max),
    Schema.isPattern(/^[A-Za-z0-9_-]*={0,2}$/, { message: "INVALID_FORMAT: Expected base64url" })
  )
const CredentialId = Base64Url(1364)
const AuthenticatorAttachment = Schema.optional(Schema.NullOr(Schema.Literals(["platform", "cross-platform"])))
const ClientExtensionResults = Schema.optional(Schema.Record(Schema.String, Schema.Unknown))

/** RegistrationResponseJSON (WebAuthn Level 3), what `navigator.credentials.create()` gives, serialized. */
export const RegistrationResponse = Schema.Struct({
  id: CredentialId,
  rawId: CredentialId,
  type: Schema.Literal("public-key"),
  response: Schema.Struct({
    clientDataJSON: Base64Url(8192),
    attestationObject: Base64Url(65536),
    authenticatorData: Schema.optional(Base64Url(65536)),
    transports: Schema.optional(Schema.Array(Schema.String.check(Schema.isMaxLength(32))).check(Schema.isMaxLength(10))),
    publicKeyAlgorithm: Schema.optional(Schema.Int),
    publicKey: Schema.optional(Base64Url(8192))
  }),
  authenticatorAttachment: AuthenticatorAttachment,
  clientExtensionResults: ClientExtensionResults
})
export type RegistrationResponse = typeof RegistrationResponse.Type

/** AuthenticationResponseJSON, what `navigator.credentials.get()` gives, serialized. */
export const AuthenticationResponse = Schema.Struct({
  id: CredentialId,
  rawId: CredentialId,
  type: Schema.Literal("public-key"),
  response: Schema.Struct({
    clientDataJSON: Base64Url(8192),
    authenticatorData: Base64Url(65536),
    signature: Base64Url(1024),
    userHandle: Schema.optional(Schema.NullOr(Base64Url(128)))
  }),
  authenticatorAttachment: AuthenticatorAttachment,
  clientExtensionResults: ClientExtensionResults
})
export type AuthenticationResponse = typeof AuthenticationResponse.Type

/** A challenge we handed out (43 characters); the cap only keeps junk out. */
export const Challenge = Schema.String.check(Schema.isMaxLength(256))
/** An MFA ticket of /auth/login (43 characters). */
export const Ticket = Schema.String.check(Schema.isMaxLength(256))
/** A TOTP, SMS or backup code as typed; the service reads spaces and dashes. */
const Code = Schema.String.check(Schema.isMaxLength(64))
const CredentialName = BoundedText(1, 100)

export const MfaTotpRequest = Schema.Struct({ code: Code, ticket: Ticket })
export const MfaSmsRequest = MfaTotpRequest
export const MfaTicketRequest = Schema.Struct({ ticket: Ticket })
export const WebAuthnMfaRequest = Schema.Struct({ challenge: Challenge, response: AuthenticationResponse, ticket: Ticket })
export const WebAuthnAuthenticateRequest = Schema.Struct({ challenge: Challenge, response: AuthenticationResponse })

export const EnableMfaTotpRequest = Schema.Struct({
  secret: Schema.String.check(Schema.isMaxLength(256)),
  code: Code,
  ...SudoFields
})
export const DisableTotpRequest = Schema.Struct({ code: Code, ...SudoFields })
export const MfaBackupCodesRequest = Schema.Struct({ regenerate: Schema.optional(Schema.Boolean), ...SudoFields })
/** SudoVerificationSchema; a request without a body reads as null (a sudo token in the header is proof enough). */
export const SudoVerificationRequest = [Schema.Struct(SudoFields), Schema.Null] as const
export const WebAuthnRegisterRequest = Schema.Struct({ response: RegistrationResponse, challenge: Challenge, name: CredentialName })
export const WebAuthnCredentialUpdateRequest = Schema.Struct({ name: CredentialName, ...SudoFields })

export const MfaBackupCodesResponse = Schema.Struct({
  backup_codes: Schema.Array(Schema.Struct({ code: Schema.String, consumed: Schema.Boolean }))
})
export const WebAuthnCredentialResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  created_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String)
})
export const SudoMfaMethodsResponse = Schema.Struct({
  totp: Schema.Boolean,
  sms: Schema.Boolean,
  webauthn: Schema.Boolean,
  has_mfa: Schema.Boolean
})

/**
 * The options object of the WebAuthn JSON API (PublicKeyCredentialCreationOptionsJSON or
 * ...RequestOptionsJSON), handed to the browser as it is. Its `challenge` is what the
 * client sends back (WebAuthnChallengeResponse).
 */
export const WebAuthnOptionsResponse = Schema.StructWithRest(
  Schema.Struct({ challenge: Schema.String }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
