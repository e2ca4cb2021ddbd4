import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../http/Api.ts"
import { Unavailable } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { RedisClient } from "../platform/Redis.ts"

const down = (what: string) => new Unavailable({ code: "SERVICE_UNAVAILABLE", message: `${what} is not answering` })

/** How long one probe of Postgres and Redis answers for: liveness polls must not load the database. */
const PROBE_TTL = "1 second"

export const HealthHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "health", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const redis = yield* Effect.serviceOption(RedisClient)
    const pingDatabase = sql`SELECT 1`.pipe(Effect.timeout("2 seconds"), Effect.mapError(() => down("Postgres")))
    const pingRedis = Option.match(redis, {
      onNone: () => Effect.succeed("not used" as const),
      onSome: (client) =>
        Effect.tryPromise(() => client.ping()).pipe(
          Effect.timeout("2 seconds"),
          Effect.mapError(() => down("Redis")),
          Effect.as("ok" as const)
        )
    })
    const probe = yield* Effect.cachedWithTTL(
      Effect.map(Effect.zip(pingDatabase, pingRedis, { concurrent: true }), ([, redisState]) => ({
        status: "ok" as const,
        database: "ok" as const,
        redis: redisState
      })),
      PROBE_TTL
    )
    return handlers.handle("health", () => probe)
  }))))
