import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { normalizeAddress } from "../platform/IpAddress.ts"

/**
 * One spelling per address (an IPv4 client on a dual-stack socket shows as
 * `::ffff:1.2.3.4`). The server already gives the client's address so spelled;
 * rows written before it did may not be.
 */
export const normalizeIp = (ip: string): string => normalizeAddress(ip) ?? ip

/**
 * The addresses a user has logged in from (table user_known_ips). A password
 * login from any other address waits for IP authorization (conventions.md).
 */
export const rememberIp = (sql: SqlClient.SqlClient, userId: string, ip: string | null): Effect.Effect<void> =>
  ip === null
    ? Effect.void
    : sql`INSERT INTO user_known_ips (user_id, ip) VALUES (${userId}, ${normalizeIp(ip)})
          ON CONFLICT (user_id, ip) DO UPDATE SET last_seen = now()`.pipe(Effect.asVoid, Effect.orDie)

export const isKnownIp = (sql: SqlClient.SqlClient, userId: string, ip: string): Effect.Effect<boolean> =>
  sql`SELECT 1 FROM user_known_ips WHERE user_id = ${userId} AND ip = ${normalizeIp(ip)}`.pipe(
    Effect.map((rows) => rows.length > 0),
    Effect.orDie
  )
