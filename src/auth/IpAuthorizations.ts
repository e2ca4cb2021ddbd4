import { Config, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../platform/Config.ts"
import { BadRequest, Forbidden, invalidField, TooManyRequests } from "../model/Errors.ts"
import { Mailer } from "../mail/Mailer.ts"
import { newToken, tokenHash } from "../platform/Crypto.ts"
import { isKnownIp, normalizeIp, rememberIp } from "./KnownIps.ts"
import { ipAuthorizationMail } from "./Mails.ts"

/** How long the emailed link and the ticket live (conventions.md: 15 minutes). */
const LIFETIME_SECONDS = 15 * 60
/** A new email for the same login at most this often... */
const RESEND_COOLDOWN_SECONDS = 60
/** ...and at most this many emails per ticket. */
const MAX_SENDS = 5

export type PollResult = { readonly completed: false } | { readonly completed: true; readonly userId: string }

const badTicket = () =>
  invalidField("ticket", "INVALID_OR_EXPIRED_AUTHORIZATION_TICKET", "This ticket is invalid or has expired; log in again")

/**
 * IP authorization (conventions.md, "Sessions, MFA, sudo"): a correct password
 * from an unknown address (and no MFA) answers 403 IP_AUTHORIZATION_REQUIRED
 * with a ticket and emails a link; opening it (POST /auth/authorize-ip) makes
 * the address known, and the waiting client's poll then gets its session.
 * IP_AUTHORIZATION=off turns the check off (a deployment that cannot send mail).
 */
export class IpAuthorizations extends Context.Service<IpAuthorizations, {
  /** Whether a login of `userId` from `ip` must wait for IP authorization. */
  readonly required: (userId: string, ip: string | null) => Effect.Effect<boolean>
  /** Opens (or renews) the wait and emails the link; answers the 403 to reply with. */
  readonly start: (userId: string, email: string, ip: string) => Effect.Effect<Forbidden>
  readonly resend: (ticket: string) => Effect.Effect<void, BadRequest | TooManyRequests>
  readonly authorize: (token: string) => Effect.Effect<void, BadRequest>
  /** Once completed, the first poll consumes the ticket (the caller then opens the session). */
  readonly poll: (ticket: string) => Effect.Effect<PollResult, BadRequest>
}>()("guildhall/IpAuthorizations") {
  static readonly layer = Layer.effect(
    IpAuthorizations,
    Effect.gen(function*() {
      const enabled = yield* Config.Literals(["on", "off"], "IP_AUTHORIZATION").pipe(
        Config.map((value) => value === "on"),
        Config.withDefault(true)
      )
      if (!enabled) yield* Effect.logWarning("IP_AUTHORIZATION=off: logins from new addresses need no email confirmation")
      const sql = yield* SqlClient.SqlClient
      const mailer = yield* Mailer
      const { publicUrl } = yield* AppConfig

      const send = (email: string, token: string, ip: string) =>
        mailer.send(ipAuthorizationMail(publicUrl, email, token, ip)).pipe(
          Effect.catch((error) => Effect.logWarning("IP authorization email not sent", error.message))
        )
      const emailOf = (userId: string) =>
        sql<{ email: string | null }>`SELECT email FROM users WHERE id = ${userId}`.pipe(
          Effect.map((rows) => rows[0]?.email ?? null),
          Effect.orDie
        )

      const required = Effect.fn("IpAuthorizations.required")((userId: string, ip: string | null) =>
        !enabled || ip === null ? Effect.succeed(false) : Effect.map(isKnownIp(sql, userId, ip), (known) => !known))

      const start = Effect.fn("IpAuthorizations.start")(function*(userId: string, email: string, rawIp: string) {
        const ip = normalizeIp(rawIp)
        const ticket = newToken()
        yield* sql`DELETE FROM ip_authorizations WHERE expires_at < now() - interval '1 day'`
        // Logging in again from the same address renews the waiting ticket rather than
        // piling up emails: a new one goes out only once the cooldown has passed.
        const renewed = yield* sql<{ wait: number; sends: number }>`
          UPDATE ip_authorizations SET ticket_hash = ${tokenHash(ticket)}
          WHERE ticket_hash = (SELECT ticket_hash FROM ip_authorizations
                               WHERE user_id = ${userId} AND ip = ${ip} AND completed_at IS NULL AND expires_at > now()
                               ORDER BY last_sent_at DESC LIMIT 1)
          RETURNING ceil(extract(epoch FROM last_sent_at + make_interval(secs => ${RESEND_COOLDOWN_SECONDS}) - now()))::int AS wait,
                    sends`
        const current = renewed[0]
        let wait = RESEND_COOLDOWN_SECONDS
        if (current === undefined) {
          const token = newToken()
          yield* sql`INSERT INTO ip_authorizations (ticket_hash, token_hash, user_id, ip, expires_at)
                     VALUES (${tokenHash(ticket)}, ${tokenHash(token)}, ${userId}, ${ip},
                             now() + make_interval(secs => ${LIFETIME_SECONDS}))`
          yield* send(email, token, ip)
        } else if (current.wait <= 0 && current.sends < MAX_SENDS) {
          yield* resendFor(ticket, email, ip)
        } else {
          wait = Math.max(0, current.wait)
        }
        return new Forbidden({
          code: "IP_AUTHORIZATION_REQUIRED",
          message: "A login from a new location must be confirmed from the email we sent",
          ticket,
          email,
          resend_available_in: wait
        })
      }, Effect.orDie)

      /** A fresh token in a fresh email; the previous link stops working. */
      const resendFor = (ticket: string, email: string, ip: string) =>
        Effect.gen(function*() {
          const token = newToken()
          const rows = yield* sql`
            UPDATE ip_authorizations
            SET token_hash = ${tokenHash(token)}, sends = sends + 1, last_sent_at = now(),
                expires_at = now() + make_interval(secs => ${LIFETIME_SECONDS})
            WHERE ticket_hash = ${tokenHash(ticket)} AND completed_at IS NULL AND expires_at > now()
              AND sends < ${MAX_SENDS} AND last_sent_at <= now() - make_interval(secs => ${RESEND_COOLDOWN_SECONDS})
            RETURNING 1`
          if (rows.length === 1) yield* send(email, token, ip)
          return rows.length === 1
        }).pipe(Effect.orDie)

      const resend = Effect.fn("IpAuthorizations.resend")(function*(ticket: string) {
        const rows = yield* sql<{ user_id: string; ip: string; sends: number; completed: boolean; wait: number; left: number }>`
          SELECT user_id, ip, sends, completed_at IS NOT NULL AS completed,
                 ceil(extract(epoch FROM last_sent_at + make_interval(secs => ${RESEND_COOLDOWN_SECONDS}) - now()))::int AS wait,
                 ceil(extract(epoch FROM expires_at - now()))::int AS left
          FROM ip_authorizations
          WHERE ticket_hash = ${tokenHash(ticket)} AND consumed_at IS NULL AND expires_at > now()`.pipe(Effect.orDie)
        const row = rows[0]
        if (row === undefined) return yield* badTicket()
        if (row.completed) {
          return yield* invalidField("ticket", "TICKET_ALREADY_COMPLETED", "This login was already confirmed")
        }
        if (row.wait > 0) {
          return yield* new TooManyRequests({
            code: "IP_AUTHORIZATION_RESEND_COOLDOWN",
            message: `Wait ${row.wait} seconds before asking for another email`,
            retry_after: row.wait,
            global: false
          })
        }
        if (row.sends >= MAX_SENDS) {
          return yield* new TooManyRequests({
            code: "IP_AUTHORIZATION_RESEND_LIMIT_EXCEEDED",
            message: "No more emails for this login; log in again once this one expires",
            retry_after: Math.max(0, row.left),
            global: false
          })
        }
        const email = yield* emailOf(String(row.user_id))
        if (email === null) return yield* badTicket()
        // Lost a race with another resend: the cooldown applies to this one.
        if (!(yield* resendFor(ticket, email, row.ip))) {
          return yield* new TooManyRequests({
            code: "IP_AUTHORIZATION_RESEND_COOLDOWN",
            message: "An email was just sent",
            retry_after: RESEND_COOLDOWN_SECONDS,
            global: false
          })
        }
      })

      const authorize = Effect.fn("IpAuthorizations.authorize")(function*(token: string) {
        const rows = yield* sql<{ user_id: string; ip: string }>`
          UPDATE ip_authorizations
          SET completed_at = now(), expires_at = now() + make_interval(secs => ${LIFETIME_SECONDS})
          WHERE token_hash = ${tokenHash(token)} AND completed_at IS NULL AND expires_at > now()
          RETURNING user_id, ip`.pipe(Effect.orDie)
        const row = rows[0]
        if (row === undefined) {
          return yield* invalidField("token", "INVALID_OR_EXPIRED_AUTHORIZATION_TOKEN", "This link is invalid or has expired")
        }
        yield* rememberIp(sql, String(row.user_id), row.ip)
      })

      const poll = Effect.fn("IpAuthorizations.poll")(function*(ticket: string) {
        const consumed = yield* sql<{ user_id: string }>`
          UPDATE ip_authorizations SET consumed_at = now()
          WHERE ticket_hash = ${tokenHash(ticket)} AND completed_at IS NOT NULL AND consumed_at IS NULL
            AND expires_at > now()
          RETURNING user_id`.pipe(Effect.orDie)
        const done = consumed[0]
        if (done !== undefined) return { completed: true, userId: String(done.user_id) } satisfies PollResult
        const pending = yield* sql`
          SELECT 1 FROM ip_authorizations
          WHERE ticket_hash = ${tokenHash(ticket)} AND completed_at IS NULL AND expires_at > now()`.pipe(Effect.orDie)
        if (pending.length === 0) return yield* badTicket()
        return { completed: false } satisfies PollResult
      })

      return IpAuthorizations.of({ required, start, resend, authorize, poll })
    }).pipe(Effect.orDie)
  )
}
