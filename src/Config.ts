import { Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"

/**
 * Every setting of a Guildhall process, read once at start-up through
 * `effect/Config` so that a bad value stops the process with a message that
 * names the variable.
 */
export interface Settings {
  /** HTTP listen port and host of the API process. */
  readonly port: number
  readonly host: string
  /** Where the embedded database and other local files live. */
  readonly dataDir: string
  /** A real Postgres; absent means the embedded PGlite under `dataDir`. */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  /** A real Redis; present means cluster mode (shards in other processes). */
  readonly redisUrl: Option.Option<Redacted.Redacted>
  /** Every Redis key and channel of this deployment starts with it. */
  readonly redisKeyPrefix: string
  /** Where a shard process listens for other runners, and the host it advertises. */
  readonly shardHost: string
  readonly shardPort: number
  readonly shardAdvertiseHost: string
  /** Seconds a dead shard process keeps its shards before others take them. */
  readonly shardLockExpirationSeconds: number
  /** Upper bound of one actor call from the HTTP layer. */
  readonly actorCallTimeoutMillis: number
  /** Guild actors one shard process keeps in memory at most. */
  readonly maxResidentActors: number
  /** Minutes an idle actor stays in memory. */
  readonly actorIdleMinutes: number
  /** Secret of an admin API key with every ACL, made sure of at start. */
  readonly adminBootstrapKey: Option.Option<Redacted.Redacted>
  /** Log every request (otherwise only errors and a sample are logged). */
  readonly logRequests: boolean
}

const positiveInt = (name: string, fallback: number) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), name).pipe(Config.withDefault(fallback))

/** A combination of settings that cannot work, reported at start-up. */
export class InvalidConfiguration extends Schema.TaggedError<InvalidConfiguration>()("InvalidConfiguration", {
  message: Schema.String
}) {}

export const settingsConfig: Config.Config<Settings> = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(8080)),
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./data")),
  databaseUrl: Config.Redacted("DATABASE_URL").pipe(Config.option),
  redisUrl: Config.Redacted("REDIS_URL").pipe(Config.option),
  redisKeyPrefix: Config.String("REDIS_KEY_PREFIX").pipe(Config.withDefault("guildhall:")),
  shardHost: Config.String("SHARD_HOST").pipe(Config.withDefault("127.0.0.1")),
  shardPort: Config.Port("SHARD_PORT").pipe(Config.withDefault(34431)),
  shardAdvertiseHost: Config.String("SHARD_ADVERTISE_HOST").pipe(Config.withDefault("127.0.0.1")),
  shardLockExpirationSeconds: positiveInt("SHARD_LOCK_EXPIRATION_SECONDS", 6),
  actorCallTimeoutMillis: positiveInt("ACTOR_CALL_TIMEOUT_MS", 10_000),
  maxResidentActors: positiveInt("MAX_RESIDENT_ACTORS", 100_000),
  actorIdleMinutes: positiveInt("ACTOR_IDLE_MINUTES", 30),
  adminBootstrapKey: Config.Redacted("ADMIN_BOOTSTRAP_KEY").pipe(Config.option),
  logRequests: Config.Boolean("LOG_REQUESTS").pipe(Config.withDefault(false))
})

const checked = (settings: Settings) =>
  Option.isSome(settings.redisUrl) && Option.isNone(settings.databaseUrl)
    ? Effect.fail(
      new InvalidConfiguration({
        message: "REDIS_URL is set but DATABASE_URL is not: cluster mode needs a Postgres server every process can reach"
      })
    )
    : Effect.succeed(settings)

export class AppConfig extends Context.Service<AppConfig, Settings>()("guildhall/AppConfig") {
  static readonly layer = Layer.effect(AppConfig, Effect.flatMap(settingsConfig, checked))

  static readonly layerWith = (overrides: Partial<Settings>) =>
    Layer.effect(AppConfig, Effect.flatMap(settingsConfig, (s) => checked({ ...s, ...overrides })))
}

/** True when shard ownership lives in Redis and actors run in shard processes. */
export const isClusterMode = (settings: Settings): boolean => Option.isSome(settings.redisUrl)
