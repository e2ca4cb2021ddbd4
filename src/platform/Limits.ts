import { Context, Effect, Layer, Schema, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import { DEFAULT_CONFIG, LimitConfig, type LimitReader, resolveLimit } from "../model/Limits.ts"
import { AppConfig } from "./Config.ts"
import { rereadOnNotice } from "./RedisRereads.ts"

/** Where the processes of a cluster hear that the limit configuration changed. */
export const limitsChannel = (prefix: string) => `${prefix}limits:changed`

const decodeStored = Schema.decodeUnknownEffect(LimitConfig)

/**
 * The limits in force, held in memory by every process (API and shard) so a
 * check reads them synchronously (`get`). Postgres is the truth: `replace`
 * writes there, rereads here and, in cluster mode, has every other process
 * reread too, as the IP ban list does (src/admin/bans/IpBanList.ts).
 */
export class Limits extends Context.Service<Limits, {
  /** A limit's value for a user's traits and a guild's features. */
  readonly get: LimitReader
  /** The configuration in force. */
  readonly config: () => LimitConfig
  /** Stores `config` and applies it here and (cluster mode) everywhere; returns once this process applies it. */
  readonly replace: (config: LimitConfig) => Effect.Effect<void>
}>()("guildhall/Limits") {
  /** One process (embedded mode): rereading here is enough. */
  static readonly layerLocal = Layer.effect(
    Limits,
    Effect.gen(function*() {
      const held = yield* makeHeld
      return Limits.of({ get: held.get, config: held.config, replace: (config) => Effect.andThen(held.store(config), held.reread) })
    })
  )

  /** Cluster mode: a change is announced over Redis, and every process rereads (RedisRereads.ts). */
  static readonly layerRedis = Layer.effect(
    Limits,
    Effect.gen(function*() {
      const held = yield* makeHeld
      const channel = limitsChannel((yield* AppConfig).redisKeyPrefix)
      const { announce } = yield* rereadOnNotice(channel, held.reread, "limits: the limit configuration")
      return Limits.of({
        get: held.get,
        config: held.config,
        replace: (config) => Effect.andThen(Effect.andThen(held.store(config), held.reread), announce)
      })
    })
  )
}

/** The configuration, read once now; rereads one at a time, so an older read never replaces a newer one. */
const makeHeld = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const one = yield* Semaphore.make(1)
  let current: LimitConfig = DEFAULT_CONFIG
  const read = sql<{ config: unknown }>`SELECT config FROM limit_config WHERE id = 1`.pipe(
    Effect.flatMap(([row]) =>
      row === undefined
        ? Effect.succeed(DEFAULT_CONFIG)
        // A stored configuration this version cannot read (a key since removed) leaves the defaults in force, loudly.
        : decodeStored(row.config).pipe(
          Effect.catch((error) => Effect.as(Effect.logError("limits: the stored limit configuration is unreadable", error), DEFAULT_CONFIG))
        )
    )
  )
  const reread = one.withPermits(1)(Effect.map(read, (config) => {
    current = config
  })).pipe(Effect.orDie, Effect.withSpan("Limits.reread"))
  const store = (config: LimitConfig) =>
    sql`INSERT INTO limit_config (id, config, updated_at) VALUES (1, ${JSON.stringify(config)}::jsonb, now())
        ON CONFLICT (id) DO UPDATE SET config = EXCLUDED.config, updated_at = EXCLUDED.updated_at`.pipe(
      Effect.asVoid,
      Effect.orDie,
      Effect.withSpan("Limits.store")
    )
  yield* reread
  const get: LimitReader = (key, subject) => resolveLimit(current, key, subject)
  return { get, config: () => current, reread, store }
})
