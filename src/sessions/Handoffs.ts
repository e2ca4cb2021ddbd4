import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { CODE_ALPHABET, newCode } from "../account/Codes.ts"
import type { Client } from "../auth/Client.ts"
import { BadRequest } from "../model/Errors.ts"
import { tokenHash } from "../platform/Crypto.ts"

/** How long a new device waits for its code to be entered (the reference platform's 5 minutes). */
export const HANDOFF_LIFETIME_SECONDS = 5 * 60

/** A fresh code as people read it, `ABCD-EFGH`: 8 symbols, 40 random bits. */
export const newHandoffCode = newCode
const CODE_LENGTH = 8

/** The code in its stored form (upper case, no dash or spaces), or undefined when it cannot be one. */
export const normalizeHandoffCode = (input: string): string | undefined => {
  const code = input.replace(/[\s-]/g, "").toUpperCase()
  return code.length === CODE_LENGTH && [...code].every((c) => CODE_ALPHABET.includes(c)) ? code : undefined
}

export type HandoffStatus = "pending" | "completed" | "expired"

export const invalidHandoffCode = () => new BadRequest({ code: "INVALID_HANDOFF_CODE", message: "Invalid handoff code" })
export const handoffCodeExpired = () => new BadRequest({ code: "HANDOFF_CODE_EXPIRED", message: "This handoff code has expired" })

/**
 * Device handoff: a device without a session shows a short code, a signed-in
 * device enters it, and the first device then polls its way into a session.
 *
 * The completing device's token is never passed on or stored: completing only
 * records whose account it is, and the first poll that finds it completed
 * claims it (one atomic UPDATE, so exactly once) and is given a brand-new
 * session. Later polls see `completed` without a token; an unknown code reads
 * as `expired`, so polling random codes tells nothing.
 */
export class Handoffs extends Context.Service<Handoffs, {
  readonly initiate: (client: Client) => Effect.Effect<{ code: string; expiresAt: Date }>
  /** Hands the pending handoff `code` to `userId`. */
  readonly complete: (code: string, userId: string) => Effect.Effect<void, BadRequest>
  /** The state of `code`; `claimedBy` is set on the one poll that must now receive a session. */
  readonly poll: (code: string) => Effect.Effect<{ status: HandoffStatus; claimedBy?: string }, BadRequest>
  /** The state of `code` and the user agent of the device that asked (for the completing device to show). */
  readonly info: (code: string) => Effect.Effect<{ status: HandoffStatus; userAgent: string | null }, BadRequest>
  /** Withdraws a code that has not been delivered yet. */
  readonly cancel: (code: string) => Effect.Effect<void, BadRequest>
}>()("guildhall/Handoffs") {
  static readonly layer = Layer.effect(
    Handoffs,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const hashOf = (input: string) =>
        Effect.suspend(() => {
          const code = normalizeHandoffCode(input)
          return code === undefined ? Effect.fail(invalidHandoffCode()) : Effect.succeed(tokenHash(code))
        })

      type Row = { completed: boolean; delivered: boolean; live: boolean; user_agent: string | null }
      const read = (hash: Buffer) =>
        sql<Row>`SELECT completed_at IS NOT NULL AS completed, delivered_at IS NOT NULL AS delivered,
                        expires_at > now() AS live, user_agent
                 FROM auth_handoffs WHERE code_hash = ${hash}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie)

      const statusOf = (row: Row | undefined): HandoffStatus =>
        row === undefined ? "expired" : row.delivered ? "completed" : !row.live ? "expired" : row.completed ? "completed" : "pending"

      const initiate = Effect.fn("Handoffs.initiate")(function*(client: Client) {
        // Rows are worthless once expired; a day of them is kept for nothing but clarity in the table.
        yield* sql`DELETE FROM auth_handoffs WHERE expires_at < now() - interval '1 day'`
        for (;;) {
          const code = newHandoffCode()
          const rows = yield* sql<{ expires_at: Date | string }>`
            INSERT INTO auth_handoffs (code_hash, client_ip, user_agent, expires_at)
            VALUES (${tokenHash(normalizeHandoffCode(code) ?? code)}, ${client.ip}, ${client.userAgent},
                    now() + make_interval(secs => ${HANDOFF_LIFETIME_SECONDS}))
            ON CONFLICT DO NOTHING
            RETURNING expires_at`
          const row = rows[0]
          if (row !== undefined) return { code, expiresAt: new Date(row.expires_at) }
        }
      }, Effect.orDie)

      const complete = Effect.fn("Handoffs.complete")(function*(code: string, userId: string) {
        const hash = yield* hashOf(code)
        const done = yield* sql`
          UPDATE auth_handoffs SET user_id = ${userId}, completed_at = now()
          WHERE code_hash = ${hash} AND completed_at IS NULL AND expires_at > now()
          RETURNING 1`.pipe(Effect.orDie)
        if (done.length === 1) return
        const row = yield* read(hash)
        if (row !== undefined && !row.completed && !row.live) return yield* handoffCodeExpired()
        return yield* invalidHandoffCode()
      })

      const poll = Effect.fn("Handoffs.poll")(function*(code: string) {
        const hash = yield* hashOf(code)
        const claimed = yield* sql<{ user_id: string }>`
          UPDATE auth_handoffs SET delivered_at = now()
          WHERE code_hash = ${hash} AND completed_at IS NOT NULL AND delivered_at IS NULL AND expires_at > now()
          RETURNING user_id`.pipe(Effect.orDie)
        const userId = claimed[0]?.user_id
        if (userId !== undefined) return { status: "completed" as const, claimedBy: String(userId) }
        return { status: statusOf(yield* read(hash)) }
      })

      const info = Effect.fn("Handoffs.info")(function*(code: string) {
        const row = yield* read(yield* hashOf(code))
        return { status: statusOf(row), userAgent: row?.user_agent ?? null }
      })

      const cancel = Effect.fn("Handoffs.cancel")(function*(code: string) {
        const hash = yield* hashOf(code)
        yield* sql`DELETE FROM auth_handoffs WHERE code_hash = ${hash} AND delivered_at IS NULL`.pipe(Effect.orDie)
      })

      return Handoffs.of({ initiate, complete, poll, info, cancel })
    })
  )
}
