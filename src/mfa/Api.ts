import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AuthTokenWithUserIdResponse } from "../auth/Api.ts"
import { Credentials, UserAuthentication, userOnly } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"
import { RateLimit, RateLimitBucket } from "../ratelimit/RateLimit.ts"
import {
  DisableTotpRequest,
  EnableMfaTotpRequest,
  MfaBackupCodesRequest,
  MfaBackupCodesResponse,
  MfaSmsRequest,
  MfaTicketRequest,
  MfaTotpRequest,
  SudoMfaMethodsResponse,
  SudoVerificationRequest,
  WebAuthnAuthenticateRequest,
  WebAuthnCredentialResponse,
  WebAuthnCredentialUpdateRequest,
  WebAuthnMfaRequest,
  WebAuthnOptionsResponse,
  WebAuthnRegisterRequest
} from "./Schemas.ts"

/** Per IP on the login steps, per user on the rest; a code guess is cheap, so the login steps are tight. */
const bucket = (name: string, limit: number, windowSeconds: number) => ({
  name: `mfa.${name}`,
  limit,
  windowMillis: windowSeconds * 1000
})

const mfa = "/users/@me/mfa"
const credential = `${mfa}/webauthn/credentials/:credential_id`
const CredentialIdParam = { credential_id: Schema.String.check(Schema.isMaxLength(1364)) }

export class MfaApi extends HttpApiGroup.make("mfa").add(
  // The second step of a login that needs MFA: the ticket of /auth/login and a proof.
  HttpApiEndpoint.post("loginTotp", "/auth/login/mfa/totp", {
    payload: MfaTotpRequest,
    success: AuthTokenWithUserIdResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("login", 10, 60)).middleware(RateLimit),
  HttpApiEndpoint.post("loginSmsSend", "/auth/login/mfa/sms/send", {
    payload: MfaTicketRequest,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("login-sms-send", 5, 60)).middleware(RateLimit),
  HttpApiEndpoint.post("loginSms", "/auth/login/mfa/sms", {
    payload: MfaSmsRequest,
    success: AuthTokenWithUserIdResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("login", 10, 60)).middleware(RateLimit),
  HttpApiEndpoint.post("loginWebAuthnOptions", "/auth/login/mfa/webauthn/authentication-options", {
    payload: MfaTicketRequest,
    success: WebAuthnOptionsResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("webauthn-options", 20, 60)).middleware(RateLimit),
  HttpApiEndpoint.post("loginWebAuthn", "/auth/login/mfa/webauthn", {
    payload: WebAuthnMfaRequest,
    success: AuthTokenWithUserIdResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("login", 10, 60)).middleware(RateLimit),
  // Passwordless: a discoverable credential (passkey) is the whole proof.
  HttpApiEndpoint.post("passwordlessOptions", "/auth/webauthn/authentication-options", {
    success: WebAuthnOptionsResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("webauthn-options", 20, 60)).middleware(RateLimit),
  HttpApiEndpoint.post("passwordlessAuthenticate", "/auth/webauthn/authenticate", {
    payload: WebAuthnAuthenticateRequest,
    success: AuthTokenWithUserIdResponse,
    error: ApiErrors
  }).annotate(RateLimitBucket, bucket("webauthn-authenticate", 10, 60)).middleware(RateLimit),
  // Enrollment, for the signed-in user.
  HttpApiEndpoint.post("totpEnable", `${mfa}/totp/enable`, {
    payload: EnableMfaTotpRequest,
    success: MfaBackupCodesResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("totp-enable", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("totpDisable", `${mfa}/totp/disable`, {
    payload: DisableTotpRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("totp-disable", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("backupCodes", `${mfa}/backup-codes`, {
    payload: MfaBackupCodesRequest,
    success: MfaBackupCodesResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("backup-codes", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("smsEnable", `${mfa}/sms/enable`, {
    payload: SudoVerificationRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("sms-enable", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("smsDisable", `${mfa}/sms/disable`, {
    payload: SudoVerificationRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("sms-disable", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.get("webauthnCredentials", `${mfa}/webauthn/credentials`, {
    success: Schema.Array(WebAuthnCredentialResponse),
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("webauthn-list", 40, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("webauthnRegistrationOptions", `${mfa}/webauthn/credentials/registration-options`, {
    payload: SudoVerificationRequest,
    success: WebAuthnOptionsResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("webauthn-registration-options", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("webauthnRegister", `${mfa}/webauthn/credentials`, {
    payload: WebAuthnRegisterRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("webauthn-register", 10, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.patch("webauthnRename", credential, {
    params: CredentialIdParam,
    payload: WebAuthnCredentialUpdateRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("webauthn-update", 20, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.delete("webauthnDelete", credential, {
    params: CredentialIdParam,
    payload: SudoVerificationRequest,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("webauthn-delete", 20, 60)).middleware(RateLimit).middleware(UserAuthentication),
  // Ways to prove sudo mode with MFA (src/auth/Sudo.ts checks the proofs).
  HttpApiEndpoint.get("sudoMfaMethods", "/users/@me/sudo/mfa-methods", {
    success: SudoMfaMethodsResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("sudo-mfa-methods", 40, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("sudoSmsSend", "/users/@me/sudo/mfa/sms/send", {
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("sudo-sms-send", 5, 60)).middleware(RateLimit).middleware(UserAuthentication),
  HttpApiEndpoint.post("sudoWebAuthnOptions", "/users/@me/sudo/webauthn/authentication-options", {
    success: WebAuthnOptionsResponse,
    error: ApiErrors
  }).annotate(Credentials, userOnly).annotate(RateLimitBucket, bucket("sudo-webauthn-options", 20, 60)).middleware(RateLimit).middleware(UserAuthentication)
) {}
