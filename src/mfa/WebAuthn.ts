import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse
} from "@simplewebauthn/server"
import { Context, Effect, Layer } from "effect"
import { OneTimeTokens } from "../auth/OneTimeTokens.ts"
import { AppConfig } from "../platform/Config.ts"
import { BadRequest } from "../model/Errors.ts"
import { UsersRepo } from "../users/Repo.ts"
import { MfaRepo, type StoredCredential } from "./Repo.ts"
import type { AuthenticationResponse, RegistrationResponse } from "./Schemas.ts"

/** What a challenge was handed out for; one for one purpose never completes another. */
export type AssertionPurpose = "mfa" | "sudo" | "passwordless"
type ChallengePurpose = AssertionPurpose | "register"

const CHALLENGE_TTL = "5 minutes"
const TIMEOUT_MILLIS = 5 * 60 * 1000
export const MAX_CREDENTIALS = 10

export const invalidCredential = (message: string) => new BadRequest({ code: "INVALID_WEBAUTHN_CREDENTIAL", message })
const counterWentBack = () =>
  new BadRequest({
    code: "INVALID_WEBAUTHN_AUTHENTICATION_COUNTER",
    message: "The authenticator's signature counter did not increase: it may have been cloned"
  })
const expired = () => invalidCredential("The WebAuthn challenge is invalid or has expired")

/** The signature counter of authenticator data (bytes 33..36, big-endian), or undefined when it is too short. */
const signCount = (authenticatorData: string): number | undefined => {
  const bytes = Buffer.from(authenticatorData, "base64url")
  return bytes.length < 37 ? undefined : bytes.readUInt32BE(33)
}

/** The options as the wire schema types them: a plain JSON object with its `challenge`. */
export type OptionsJson = { readonly [key: string]: unknown; readonly challenge: string }
/** A JSON value without its undefined members: simplewebauthn leaves some (`allowCredentials`), and undefined is no JSON. */
const withoutUndefined = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutUndefined)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).flatMap(([key, v]) => (v === undefined ? [] : [[key, withoutUndefined(v)]])))
    : value
const asJson = (options: PublicKeyCredentialCreationOptionsJSON | PublicKeyCredentialRequestOptionsJSON): OptionsJson => ({
  ...Object.fromEntries(Object.entries(options).flatMap(([key, v]) => (v === undefined ? [] : [[key, withoutUndefined(v)]]))),
  challenge: options.challenge
})

/** The user handle of our credentials: the user id's digits, as bytes. */
const userHandleOf = (userId: string) => new Uint8Array(Buffer.from(userId, "utf8"))

const toRegistrationJson = (r: RegistrationResponse): RegistrationResponseJSON => ({
  id: r.id,
  rawId: r.rawId,
  type: r.type,
  response: {
    clientDataJSON: r.response.clientDataJSON,
    attestationObject: r.response.attestationObject,
    ...(r.response.authenticatorData === undefined ? {} : { authenticatorData: r.response.authenticatorData }),
    ...(r.response.transports === undefined ? {} : { transports: [...r.response.transports] }),
    ...(r.response.publicKeyAlgorithm === undefined ? {} : { publicKeyAlgorithm: r.response.publicKeyAlgorithm }),
    ...(r.response.publicKey === undefined ? {} : { publicKey: r.response.publicKey })
  },
  clientExtensionResults: {}
})

const toAuthenticationJson = (r: AuthenticationResponse): AuthenticationResponseJSON => ({
  id: r.id,
  rawId: r.rawId,
  type: r.type,
  response: {
    clientDataJSON: r.response.clientDataJSON,
    authenticatorData: r.response.authenticatorData,
    signature: r.response.signature,
    ...(r.response.userHandle == null ? {} : { userHandle: r.response.userHandle })
  },
  clientExtensionResults: {}
})

/**
 * The WebAuthn ceremonies (@simplewebauthn/server) with the relying party of
 * the configuration (WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME, WEBAUTHN_ORIGINS). Each
 * challenge is a one-time token (5 minutes, single use) bound to its purpose
 * and, except for passwordless login, to its user.
 */
export class WebAuthnCeremonies extends Context.Service<WebAuthnCeremonies, {
  readonly registrationOptions: (userId: string) => Effect.Effect<OptionsJson, BadRequest>
  /** Verifies an attestation for a challenge of `registrationOptions` and stores the credential. */
  readonly register: (userId: string, challenge: string, response: RegistrationResponse, name: string) => Effect.Effect<void, BadRequest>
  /** Options naming the user's credentials (second factor, sudo). */
  readonly authenticationOptions: (purpose: "mfa" | "sudo", userId: string) => Effect.Effect<OptionsJson, BadRequest>
  /** Options for a discoverable credential (passkey): the authenticator says who. */
  readonly passwordlessOptions: Effect.Effect<OptionsJson>
  /**
   * Verifies an assertion for a challenge of `purpose` and answers the user it
   * proves; `userId` is who it must be (null for passwordless). Uses the challenge up.
   */
  readonly verifyAssertion: (
    purpose: AssertionPurpose,
    userId: string | null,
    challenge: string,
    response: AuthenticationResponse
  ) => Effect.Effect<string, BadRequest>
}>()("guildhall/WebAuthnCeremonies") {
  static readonly layer = Layer.effect(
    WebAuthnCeremonies,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const tokens = yield* OneTimeTokens
      const repo = yield* MfaRepo
      const users = yield* UsersRepo
      const expectedOrigin = [...config.webauthnOrigins]

      /** A fresh challenge: the one-time token's 32 random bytes, so its base64url is the token itself. */
      const newChallenge = (purpose: ChallengePurpose, userId: string | null) =>
        Effect.map(
          tokens.issue("webauthn_challenge", userId, CHALLENGE_TTL, { purpose }),
          (token) => new Uint8Array(Buffer.from(token, "base64url"))
        )

      /** Uses the challenge up; fails unless it was handed out for `purpose` (and `userId`). */
      const redeem = (purpose: ChallengePurpose, userId: string | null, challenge: string) =>
        Effect.flatMap(tokens.redeem("webauthn_challenge", challenge), (redeemed) =>
          redeemed === undefined || redeemed.data.purpose !== purpose || (userId !== null && redeemed.userId !== userId)
            ? Effect.fail(expired())
            : Effect.void)

      const registrationOptions = Effect.fn("WebAuthnCeremonies.registrationOptions")(function*(userId: string) {
        const user = yield* users.findById(userId)
        if (user === undefined) return yield* invalidCredential("Unknown user")
        const existing = yield* repo.credentials(userId)
        if (existing.length >= MAX_CREDENTIALS) {
          return yield* new BadRequest({
            code: "WEBAUTHN_CREDENTIAL_LIMIT_REACHED",
            message: `At most ${MAX_CREDENTIALS} security keys and passkeys per account`
          })
        }
        const challenge = yield* newChallenge("register", userId)
        const options = yield* Effect.promise(() =>
          generateRegistrationOptions({
            rpName: config.webauthnRpName,
            rpID: config.webauthnRpId,
            userName: user.email ?? `${user.username}#${user.discriminator}`,
            userDisplayName: user.global_name ?? user.username,
            userID: userHandleOf(userId),
            challenge,
            timeout: TIMEOUT_MILLIS,
            attestationType: "none",
            excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: [...c.transports] })),
            // Discoverable when the authenticator can: the same key then also signs in without a password.
            authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" }
          })
        )
        return asJson(options)
      })

      const register = Effect.fn("WebAuthnCeremonies.register")(function*(
        userId: string,
        challenge: string,
        response: RegistrationResponse,
        name: string
      ) {
        yield* redeem("register", userId, challenge)
        const verified = yield* Effect.tryPromise({
          try: () =>
            verifyRegistrationResponse({
              response: toRegistrationJson(response),
              expectedChallenge: challenge,
              expectedOrigin,
              expectedRPID: config.webauthnRpId,
              // A second factor needs presence; passwordless login asks for verification when it is used.
              requireUserVerification: false
            }),
          catch: (cause) => invalidCredential(`The security key's response does not verify: ${cause instanceof Error ? cause.message : "invalid"}`)
        })
        if (!verified.verified) return yield* invalidCredential("The security key's response does not verify")
        if ((yield* repo.credentials(userId)).length >= MAX_CREDENTIALS) {
          return yield* new BadRequest({ code: "WEBAUTHN_CREDENTIAL_LIMIT_REACHED", message: `At most ${MAX_CREDENTIALS} security keys and passkeys per account` })
        }
        const { credential } = verified.registrationInfo
        const inserted = yield* repo.insertCredential({
          credentialId: credential.id,
          userId,
          publicKey: credential.publicKey,
          counter: credential.counter,
          transports: credential.transports ?? response.response.transports ?? [],
          name
        })
        if (!inserted) return yield* invalidCredential("This security key is registered already")
      })

      const optionsFor = (credentials: ReadonlyArray<StoredCredential> | undefined, challenge: Uint8Array<ArrayBuffer>, userVerification: "preferred" | "required") =>
        Effect.promise(() =>
          generateAuthenticationOptions({
            rpID: config.webauthnRpId,
            challenge,
            timeout: TIMEOUT_MILLIS,
            userVerification,
            ...(credentials === undefined ? {} : { allowCredentials: credentials.map((c) => ({ id: c.credentialId, transports: [...c.transports] })) })
          })
        ).pipe(Effect.map(asJson))

      const authenticationOptions = Effect.fn("WebAuthnCeremonies.authenticationOptions")(function*(
        purpose: "mfa" | "sudo",
        userId: string
      ) {
        const credentials = yield* repo.credentials(userId)
        if (credentials.length === 0) {
          return yield* new BadRequest({ code: "TWO_FA_NOT_ENABLED", message: "No security key or passkey is registered" })
        }
        return yield* optionsFor(credentials, yield* newChallenge(purpose, userId), "preferred")
      })

      const passwordlessOptions = Effect.flatMap(newChallenge("passwordless", null), (challenge) => optionsFor(undefined, challenge, "required"))
        .pipe(Effect.withSpan("WebAuthnCeremonies.passwordlessOptions"))

      const verifyAssertion = Effect.fn("WebAuthnCeremonies.verifyAssertion")(function*(
        purpose: AssertionPurpose,
        userId: string | null,
        challenge: string,
        response: AuthenticationResponse
      ) {
        yield* redeem(purpose, userId, challenge)
        const credential = yield* repo.credential(response.id)
        if (credential === undefined || (userId !== null && credential.userId !== userId)) {
          return yield* invalidCredential("This security key is not registered to the account")
        }
        const counter = signCount(response.response.authenticatorData)
        if (counter === undefined) return yield* invalidCredential("Malformed authenticator data")
        if ((counter > 0 || credential.counter > 0) && counter <= credential.counter) return yield* counterWentBack()
        const passwordless = purpose === "passwordless"
        if (passwordless && response.response.userHandle != null &&
          Buffer.from(response.response.userHandle, "base64url").toString("utf8") !== credential.userId) {
          return yield* invalidCredential("The passkey belongs to another account")
        }
        const verified = yield* Effect.tryPromise({
          try: () =>
            verifyAuthenticationResponse({
              response: toAuthenticationJson(response),
              expectedChallenge: challenge,
              expectedOrigin,
              expectedRPID: config.webauthnRpId,
              credential: { id: credential.credentialId, publicKey: new Uint8Array(credential.publicKey), counter: credential.counter, transports: [...credential.transports] },
              // Without a password the key is the only factor: it must have verified the person too.
              requireUserVerification: passwordless
            }),
          catch: (cause) => invalidCredential(`The security key's response does not verify: ${cause instanceof Error ? cause.message : "invalid"}`)
        })
        if (!verified.verified) return yield* invalidCredential("The security key's response does not verify")
        if (!(yield* repo.useCredential(credential.credentialId, verified.authenticationInfo.newCounter))) return yield* counterWentBack()
        return credential.userId
      })

      return WebAuthnCeremonies.of({ registrationOptions, register, authenticationOptions, passwordlessOptions, verifyAssertion })
    })
  )
}
