import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { serviceUnavailable } from "../model/Errors.ts"
import { RedisClient } from "./Redis.ts"

/** A probe that failed, saying why: its error object. */
export const notReady = serviceUnavailable

/** `what` did not answer. */
const down = (what: string) => notReady(`${what} is not answering`)

/** Postgres answers a query within 2 s. */
export const probeDatabase = Effect.map(SqlClient.SqlClient, (sql) =>
  sql`SELECT 1`.pipe(Effect.timeout("2 seconds"), Effect.mapError(() => down("Postgres")), Effect.as("ok" as const)))

/** Redis answers a PING within 2 s; a process without Redis (embedded) does not use it. */
export const probeRedis = Effect.map(Effect.serviceOption(RedisClient), (redis) =>
  Option.match(redis, {
    onNone: () => Effect.succeed("not used" as const),
    onSome: (client) =>
      Effect.tryPromise(() => client.ping()).pipe(
        Effect.timeout("2 seconds"),
        Effect.mapError(() => down("Redis")),
        Effect.as("ok" as const)
      )
  }))

/** How long one probe answers for: probes that poll every second must not load the database. */
export const PROBE_TTL = "1 second"
