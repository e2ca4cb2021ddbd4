import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { formatNetwork, type Network, parseNetwork } from "../../platform/IpAddress.ts"
import { isoTimestampOrNull } from "../../platform/Timestamps.ts"

export interface Reservation {
  readonly email: string
  readonly snowflake: string
  readonly updated_at: string | null
}

/** Postgres writes a cidr as `network/prefix`; this reads it back into our canonical text. */
const canonical = (text: string): string => {
  const parsed = parseNetwork(text)
  return parsed === undefined ? text : formatNetwork(parsed)
}

/**
 * The instance's bans (addresses and ranges, emails, phone numbers) and
 * snowflake reservations in Postgres. Emails are kept lower case; ranges as
 * `cidr`, so that Postgres answers "is this address banned" with `>>=`.
 * Adding what is there and removing what is not are no-ops.
 */
export class BansRepo extends Context.Service<BansRepo, {
  readonly addIp: (network: Network) => Effect.Effect<void>
  readonly removeIp: (network: Network) => Effect.Effect<void>
  /** Whether a banned range holds the address, or the whole of the range. */
  readonly ipBanned: (address: Network) => Effect.Effect<boolean>
  /** Every banned range, canonical, oldest first. */
  readonly ips: (limit?: number) => Effect.Effect<ReadonlyArray<string>>
  readonly addEmail: (email: string) => Effect.Effect<void>
  readonly removeEmail: (email: string) => Effect.Effect<void>
  readonly emailBanned: (email: string) => Effect.Effect<boolean>
  readonly emails: (limit?: number) => Effect.Effect<ReadonlyArray<string>>
  readonly addPhone: (phone: string) => Effect.Effect<void>
  readonly removePhone: (phone: string) => Effect.Effect<void>
  readonly phoneBanned: (phone: string) => Effect.Effect<boolean>
  readonly phones: (limit?: number) => Effect.Effect<ReadonlyArray<string>>
  readonly reserve: (email: string, snowflake: string) => Effect.Effect<void>
  readonly unreserve: (email: string) => Effect.Effect<void>
  readonly reservations: Effect.Effect<ReadonlyArray<Reservation>>
  /** The user id reserved for an email, if any. */
  readonly reservedId: (email: string) => Effect.Effect<string | undefined>
}>()("guildhall/BansRepo") {
  static readonly layer = Layer.effect(
    BansRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const limited = (limit: number | undefined) => (limit === undefined ? sql`` : sql`LIMIT ${limit}`)
      const exists = (rows: ReadonlyArray<unknown>) => rows.length > 0

      return BansRepo.of({
        addIp: (n) =>
          sql`INSERT INTO banned_ips (network) VALUES (${formatNetwork(n)}::cidr) ON CONFLICT DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),
        removeIp: (n) => sql`DELETE FROM banned_ips WHERE network = ${formatNetwork(n)}::cidr`.pipe(Effect.asVoid, Effect.orDie),
        ipBanned: (address) =>
          sql`SELECT 1 FROM banned_ips WHERE network >>= ${formatNetwork(address)}::inet LIMIT 1`.pipe(Effect.map(exists), Effect.orDie),
        ips: (limit) =>
          sql<{ network: string }>`
            SELECT host(network) || '/' || masklen(network) AS network FROM banned_ips
            ORDER BY created_at, network ${limited(limit)}`.pipe(
            Effect.map((rows) => rows.map((row) => canonical(row.network))),
            Effect.orDie
          ),
        addEmail: (email) =>
          sql`INSERT INTO banned_emails (email) VALUES (${email.toLowerCase()}) ON CONFLICT DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),
        removeEmail: (email) => sql`DELETE FROM banned_emails WHERE email = ${email.toLowerCase()}`.pipe(Effect.asVoid, Effect.orDie),
        emailBanned: (email) =>
          sql`SELECT 1 FROM banned_emails WHERE email = ${email.toLowerCase()}`.pipe(Effect.map(exists), Effect.orDie),
        emails: (limit) =>
          sql<{ email: string }>`SELECT email FROM banned_emails ORDER BY created_at, email ${limited(limit)}`.pipe(
            Effect.map((rows) => rows.map((row) => row.email)),
            Effect.orDie
          ),
        addPhone: (phone) =>
          sql`INSERT INTO banned_phones (phone) VALUES (${phone}) ON CONFLICT DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),
        removePhone: (phone) => sql`DELETE FROM banned_phones WHERE phone = ${phone}`.pipe(Effect.asVoid, Effect.orDie),
        phoneBanned: (phone) => sql`SELECT 1 FROM banned_phones WHERE phone = ${phone}`.pipe(Effect.map(exists), Effect.orDie),
        phones: (limit) =>
          sql<{ phone: string }>`SELECT phone FROM banned_phones ORDER BY created_at, phone ${limited(limit)}`.pipe(
            Effect.map((rows) => rows.map((row) => row.phone)),
            Effect.orDie
          ),
        reserve: (email, snowflake) =>
          sql`INSERT INTO snowflake_reservations (email, snowflake) VALUES (${email.toLowerCase()}, ${snowflake})
              ON CONFLICT (email) DO UPDATE SET snowflake = EXCLUDED.snowflake, updated_at = now()`.pipe(Effect.asVoid, Effect.orDie),
        unreserve: (email) =>
          sql`DELETE FROM snowflake_reservations WHERE email = ${email.toLowerCase()}`.pipe(Effect.asVoid, Effect.orDie),
        reservations: sql<{ email: string; snowflake: string; updated_at: Date | null }>`
          SELECT email, snowflake::text AS snowflake, updated_at FROM snowflake_reservations ORDER BY email`.pipe(
          Effect.map((rows) => rows.map((row) => ({ ...row, updated_at: isoTimestampOrNull(row.updated_at) }))),
          Effect.orDie
        ),
        reservedId: (email) =>
          sql<{ snowflake: string }>`SELECT snowflake::text AS snowflake FROM snowflake_reservations WHERE email = ${email.toLowerCase()}`.pipe(
            Effect.map((rows) => rows[0]?.snowflake),
            Effect.orDie
          )
      })
    })
  )
}
