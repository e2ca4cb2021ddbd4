import { Context, Effect, Layer, Schema } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import type { CurrentUser } from "../http/Authentication.ts"
import { type BadRequest, type Forbidden, invalidField, sudoModeRequired } from "../model/Errors.ts"
import { MfaProofFields, MfaProofs } from "../mfa/Proofs.ts"
import { UsersRepo } from "../users/Repo.ts"
import { Passwords } from "./Passwords.ts"

/** The fields of a request that proves sudo mode: the password, or an MFA proof when MFA is on. */
export const SudoFields = {
  password: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1024))),
  ...MfaProofFields
}
const SudoProof = Schema.Struct(SudoFields)
export type SudoProof = typeof SudoProof.Type

export const SUDO_HEADER = "x-service-sudo-mode-jwt"
const LIFETIME_SECONDS = 5 * 60

const b64 = (value: string | Buffer) => Buffer.from(value).toString("base64url")

/**
 * Sudo mode (conventions.md): a sensitive action needs the password, or an
 * MFA proof when MFA is on. Success hands back a 5-minute token, an HS256 JWT
 * bound to the session, in `X-Service-Sudo-Mode-JWT`; sent back in that
 * header it stands in for the proof until it expires.
 */
export class Sudo extends Context.Service<Sudo, {
  /** Succeeds when the request holds sudo mode or proves it now (then the reply carries a fresh token). */
  readonly require: (
    me: CurrentUser["Service"],
    proof: SudoProof
  ) => Effect.Effect<void, Forbidden | BadRequest, HttpServerRequest.HttpServerRequest>
}>()("guildhall/Sudo") {
  static readonly layer = Layer.effect(
    Sudo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const users = yield* UsersRepo
      const passwords = yield* Passwords
      const mfa = yield* MfaProofs
      // One key for every process of the deployment: the first process to start makes it.
      yield* sql`INSERT INTO instance_secrets (name, value) VALUES ('sudo_hmac', ${randomBytes(32)}) ON CONFLICT DO NOTHING`
      const rows = yield* sql<{ value: Uint8Array }>`SELECT value FROM instance_secrets WHERE name = 'sudo_hmac'`
      const key = Buffer.from(rows[0]?.value ?? randomBytes(32))

      const sign = (body: string) => createHmac("sha256", key).update(body).digest()
      const issue = (me: CurrentUser["Service"]) => {
        const body = `${b64(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${
          b64(JSON.stringify({ sub: me.id, sid: me.session.tokenHash.toString("base64url"), exp: Math.floor(Date.now() / 1000) + LIFETIME_SECONDS }))
        }`
        return `${body}.${b64(sign(body))}`
      }
      const holds = (me: CurrentUser["Service"], token: string): boolean => {
        const [header, payload, signature] = token.split(".")
        if (header === undefined || payload === undefined || signature === undefined) return false
        const expected = sign(`${header}.${payload}`)
        const given = Buffer.from(signature, "base64url")
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false
        try {
          const claims: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
          if (typeof claims !== "object" || claims === null) return false
          const { sub, sid, exp } = claims as { sub?: unknown; sid?: unknown; exp?: unknown }
          return sub === me.id && sid === me.session.tokenHash.toString("base64url") && typeof exp === "number" &&
            exp > Date.now() / 1000
        } catch {
          return false
        }
      }

      const require = Effect.fn("Sudo.require")(function*(me: CurrentUser["Service"], proof: SudoProof) {
        const request = yield* HttpServerRequest.HttpServerRequest
        const presented = request.headers[SUDO_HEADER]
        if (presented !== undefined && holds(me, presented)) return
        const hasMfa = yield* mfa.hasMfa(me.id)
        if (hasMfa && proof.mfa_method !== undefined) {
          if (!(yield* mfa.verify(me.id, proof))) {
            return yield* invalidField("mfa_code", "INVALID_MFA_CODE", "Invalid two-factor code")
          }
        } else if (!hasMfa && proof.password !== undefined) {
          const user = yield* users.findById(me.id)
          if (!(yield* passwords.verify(user?.password_hash, proof.password))) {
            return yield* invalidField("password", "INVALID_PASSWORD", "Password is incorrect")
          }
        } else {
          return yield* sudoModeRequired(hasMfa)
        }
        const token = issue(me)
        yield* HttpEffect.appendPreResponseHandler((_request, response) =>
          Effect.succeed(HttpServerResponse.setHeader(response, SUDO_HEADER, token)))
      })

      return Sudo.of({ require })
    }).pipe(Effect.orDie)
  )
}
