import { Config, Context, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"
import { isIPv4, isIPv6 } from "node:net"
import { DEFAULT_MAX_FAVORITE_MEMES } from "../model/FavoriteMemes.ts"
import { type Network, parseNetwork } from "./IpAddress.ts"

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
  /** The port other processes use to reach this shard process: SHARD_PORT unless a proxy or NAT is between. */
  readonly shardAdvertisePort: number
  /** Seconds a dead shard process keeps its shards before others take them. */
  readonly shardLockExpirationSeconds: number
  /** Upper bound of one actor call from the HTTP layer. */
  readonly actorCallTimeoutMillis: number
  /** Guild actors one shard process keeps in memory at most. */
  readonly maxResidentActors: number
  /** Minutes an idle actor stays in memory. */
  readonly actorIdleMinutes: number
  /** Serve reads of an actor living in this process from its published state (off: every read through its mailbox). */
  readonly actorLocalReads: boolean
  /** Secret of an admin API key with every ACL, made sure of at start. */
  readonly adminBootstrapKey: Option.Option<Redacted.Redacted>
  /** Log every request (otherwise only errors and a sample are logged). */
  readonly logRequests: boolean
  /** Where people reach this deployment; links in emails start with it. */
  readonly publicUrl: string
  /** Origins whose browser pages may call the API and open the gateway (`*`: every origin). */
  readonly corsOrigins: ReadonlyArray<string>
  /** An SMTP server (`smtp://user:pass@host:port`); absent means mail goes to the outbox under `dataDir`. */
  readonly smtpUrl: Option.Option<Redacted.Redacted>
  /** The From of every email. */
  readonly mailFrom: string
  /** The SMS provider's HTTP endpoint; absent means texts go to the outbox under `dataDir`. */
  readonly smsProviderUrl: Option.Option<Redacted.Redacted>
  /** WebAuthn relying party: its id (a domain) and the origins browsers may sign for. */
  readonly webauthnRpId: string
  readonly webauthnRpName: string
  readonly webauthnOrigins: ReadonlyArray<string>
  /** Rate limits of conventions.md; off only by explicit configuration (tests, benchmarks). */
  readonly rateLimits: boolean
  /** Days between POST /users/@me/delete and the deletion; a login in between cancels it. */
  readonly accountDeletionGraceDays: number
  /** Members a guild needs before it may apply to discovery. */
  readonly discoveryMinMembers: number
  /** Seconds between two runs of the job that deletes accounts whose grace period is over. */
  readonly accountDeletionSweepSeconds: number
  /** Seconds between two runs of the job that sends due scheduled messages (each API process runs it). */
  readonly scheduledMessageSweepSeconds: number
  /** Seconds between two runs of the job that carries out self-service message deletions. */
  readonly messageDeletionSweepSeconds: number
  /** Seconds between POST /users/@me/messages/delete and the deletion starting; DELETE cancels it until then. */
  readonly messageDeletionDelaySeconds: number
  /** An S3-compatible bucket for uploaded media; absent means files under `dataDir/media`. */
  readonly mediaS3: Option.Option<MediaS3Settings>
  /** The WebSocket URL `GET /gateway` hands out; absent means ws:// on the Host the client asked. */
  readonly gatewayUrl: Option.Option<string>
  /** HELLO's `heartbeat_interval` in ms; a client silent for 1.5 of them is closed with 4009. */
  readonly gatewayHeartbeatMillis: number
  /** Bytes a gateway connection may have waiting to be sent before it is closed as too slow (4000, resumable). */
  readonly gatewayOutboundLimitBytes: number
  /** Proxies whose `X-Forwarded-For` is believed (addresses and CIDR ranges); empty: the socket's address is the client's. */
  readonly trustedProxies: ReadonlyArray<Network>
  /**
   * The DNS server reverse lookups and domain connection proofs ask (`host` or
   * `host:port`, an IP address); absent: the system's resolvers.
   */
  readonly dnsServer: Option.Option<string>
  /** The two GIF providers (src/gifs): where their HTTP API is and the key it wants; no key, their routes answer 503. */
  readonly gifa: GifProviderSettings
  readonly gifb: GifProviderSettings
  /** How long a GIF provider may take to answer before the request gives up (503). */
  readonly gifProviderTimeoutMillis: number
  /**
   * The social-network instance every handle's profile is read from (an http(s)
   * base URL, without a trailing slash); absent: `https://` and the handle's host.
   */
  readonly socialInstanceUrl: Option.Option<string>
  /** How the server fetches media from URLs it is given (src/media/RemoteFetch.ts). */
  readonly mediaFetch: MediaFetchSettings
  /** Saved media ("memes") one user may keep. */
  readonly memesMaxPerUser: number
  /**
   * `OTEL_EXPORTER_OTLP_ENDPOINT`: an OTLP/HTTP collector's base URL (traces go to
   * `<endpoint>/v1/traces`); absent: no traces are exported, and none are made.
   */
  readonly otlpEndpoint: Option.Option<string>
  /** `OTEL_SERVICE_NAME`; absent: `guildhall-api` or `guildhall-shard` by the process's role. */
  readonly otelServiceName: Option.Option<string>
  /** `OTEL_BSP_SCHEDULE_DELAY`: milliseconds between two exports of ended spans. */
  readonly otlpExportIntervalMillis: number
  /**
   * `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`: ended spans that start an export at once
   * (OpenTelemetry's default, 512): kept small, the spans waiting for their
   * export die young instead of burdening the old generation's collections.
   */
  readonly otlpMaxBatchSize: number
  /**
   * The share of traces started here that are recorded (0 to 1), from
   * `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`; a trace continued from
   * another process keeps that process's decision.
   */
  readonly traceSampleRatio: number
  /** How log lines are written: one JSON object a line, or coloured text for a terminal. */
  readonly logFormat: LogFormat
  /** A port for `/_health` and `/_ready` of a shard process (Kubernetes probes); absent: none. */
  readonly healthPort: Option.Option<number>
  /** Prometheus metrics of this process (src/platform/Metrics.ts). */
  readonly metrics: MetricsSettings
}

/** What the process records for Prometheus, and where it is scraped besides the API's admin route `/metrics`. */
export interface MetricsSettings {
  /** METRICS: record at all (off: the recording sites are not even built; benchmarks compare). */
  readonly enabled: boolean
  /** METRICS_PORT: a plain HTTP listener serving `/metrics` without credentials (the shard processes' only way). */
  readonly port: Option.Option<number>
  /** METRICS_HOST: the address that listener binds. */
  readonly host: string
}

export type LogFormat = "json" | "pretty"

/** One GIF provider's API: its base URL (no trailing slash) and its key, if the operator has one. */
export interface GifProviderSettings {
  readonly apiUrl: string
  readonly apiKey: Option.Option<Redacted.Redacted>
}

/**
 * Fetching a URL a user names: private, loopback, link-local and other
 * internal addresses are refused unless allowed, so the server cannot be
 * pointed at its own network.
 */
export interface MediaFetchSettings {
  /** Fetch from internal addresses too (a test's local server, a single-host deployment). */
  readonly allowPrivate: boolean
  /** Internal ranges fetched from even when `allowPrivate` is off (an internal media host). */
  readonly allowedNetworks: ReadonlyArray<Network>
  /** Bytes one fetch may bring; a longer body is cut off as it arrives. */
  readonly maxBytes: number
  /** The whole fetch, redirects included. */
  readonly timeoutMillis: number
}

/** Where media goes on an S3-compatible store, addressed path-style: `endpoint/bucket/hash`. */
export interface MediaS3Settings {
  /** Without a trailing slash, e.g. `https://s3.eu-central-1.amazonaws.com` or `http://127.0.0.1:9000`. */
  readonly endpoint: string
  readonly bucket: string
  readonly region: string
  readonly accessKeyId: string
  readonly secretAccessKey: Redacted.Redacted
}

/** An integer setting of at least `minimum`, `fallback` when unset; one below it, or not an integer, stops the start naming it. */
export const intSetting = (minimum: number, name: string, fallback: number) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(minimum)), name).pipe(Config.withDefault(fallback))

const positiveInt = (name: string, fallback: number) => intSetting(1, name, fallback)

/** A combination of settings that cannot work, reported at start-up. */
export class InvalidConfiguration extends Schema.TaggedError<InvalidConfiguration>()("InvalidConfiguration", {
  message: Schema.String
}) {}

/** A setting refused at start, with a message that names it. */
const invalidSetting = (message: string) =>
  new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message })))

/** S3 bucket names: 3 to 63 lower-case letters, digits, dots and hyphens. */
const BucketName = Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: "Not an S3 bucket name" }))

/**
 * All four required S3 settings or none: half a configuration stops the
 * process rather than quietly keeping media on local disk.
 */
const mediaS3Config: Config.Config<Option.Option<MediaS3Settings>> = Config.all({
  endpoint: Config.URL("MEDIA_S3_ENDPOINT").pipe(Config.map((url) => url.toString().replace(/\/$/, "")), Config.option),
  bucket: Config.schema(BucketName, "MEDIA_S3_BUCKET").pipe(Config.option),
  accessKeyId: Config.NonEmptyString("MEDIA_S3_ACCESS_KEY_ID").pipe(Config.option),
  secretAccessKey: Config.Redacted("MEDIA_S3_SECRET_ACCESS_KEY").pipe(Config.option),
  region: Config.NonEmptyString("MEDIA_S3_REGION").pipe(Config.withDefault("us-east-1"))
}).pipe(Config.mapEffect(({ region, ...required }) => {
  const complete = Option.all(required)
  if (Option.isSome(complete)) return Effect.succeed(Option.some({ ...complete.value, region }))
  const missing = Object.entries<Option.Option<unknown>>({
    MEDIA_S3_ENDPOINT: required.endpoint,
    MEDIA_S3_BUCKET: required.bucket,
    MEDIA_S3_ACCESS_KEY_ID: required.accessKeyId,
    MEDIA_S3_SECRET_ACCESS_KEY: required.secretAccessKey
  }).filter(([, value]) => Option.isNone(value)).map(([name]) => name)
  if (missing.length === 4) return Effect.succeed(Option.none())
  const message = `${missing.join(", ")} must be set too: S3 media storage needs MEDIA_S3_ENDPOINT, MEDIA_S3_BUCKET, ` +
    "MEDIA_S3_ACCESS_KEY_ID and MEDIA_S3_SECRET_ACCESS_KEY together"
  return Effect.fail(invalidSetting(message))
}))

const publicUrlConfig = Config.URL("PUBLIC_URL").pipe(
  Config.map((url) => url.toString().replace(/\/$/, "")),
  Config.withDefault("http://localhost:8080")
)

/**
 * The origin `entry` names, as a browser sends it in `Origin` (scheme, host, port:
 * `https://chat.example.com`), or undefined when it names more (a path, a query) or no web origin.
 */
const originOf = (entry: string): string | undefined => {
  if (!URL.canParse(entry)) return undefined
  const url = new URL(entry)
  const bare = url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "" && url.password === ""
  return bare && (url.protocol === "http:" || url.protocol === "https:") ? url.origin : undefined
}

/**
 * CORS_ORIGINS: comma-separated origins, or `*` for every origin; unset, the
 * origin of PUBLIC_URL (the web client served with the API). An entry with a
 * path would never match a browser's `Origin`, so it stops the start instead.
 */
const corsOriginsConfig: Config.Config<ReadonlyArray<string>> = Config.all({
  listed: Config.String("CORS_ORIGINS").pipe(Config.option),
  publicUrl: publicUrlConfig
}).pipe(Config.mapEffect(({ listed, publicUrl }) => {
  if (Option.isNone(listed)) return Effect.succeed([new URL(publicUrl).origin])
  const entries = listed.value.split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0)
  const wrong = entries.filter((entry) => entry !== "*" && originOf(entry) === undefined)
  if (wrong.length > 0) {
    return Effect.fail(invalidSetting(
      `CORS_ORIGINS: ${wrong.join(", ")} is not an origin (http(s)://host[:port], without a path), nor *`
    ))
  }
  return Effect.succeed(entries.map((entry) => originOf(entry) ?? entry))
}))

/** An IP address with an optional port, as node:dns takes a server: `1.2.3.4`, `1.2.3.4:53`, `::1`, `[::1]:53`. */
const isDnsServer = (text: string): boolean => {
  const port = (p: string | undefined) => p === undefined || (/^\d{1,5}$/.test(p) && Number(p) > 0 && Number(p) < 65536)
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text)
  if (bracketed !== null) return isIPv6(bracketed[1] ?? "") && port(bracketed[2])
  if (isIPv6(text)) return true
  const [host = "", p, ...more] = text.split(":")
  return more.length === 0 && isIPv4(host) && port(p)
}

const dnsServerConfig = Config.String("DNS_SERVER").pipe(
  Config.mapEffect((server) =>
    isDnsServer(server.trim())
      ? Effect.succeed(server.trim())
      : Effect.fail(invalidSetting(`DNS_SERVER: ${server} is not an IP address with an optional port (1.2.3.4:53, [::1]:53)`))),
  Config.option
)

/** An http(s) URL without its trailing slash; anything else stops the start naming `name`. */
const httpUrl = (name: string) =>
  Config.String(name).pipe(Config.mapEffect((value) => {
    const url = URL.canParse(value.trim()) ? new URL(value.trim()) : undefined
    return url !== undefined && (url.protocol === "http:" || url.protocol === "https:")
      ? Effect.succeed(url.toString().replace(/\/$/, ""))
      : Effect.fail(invalidSetting(`${name}: ${value} is not an http(s) URL`))
  }))

/**
 * `<PREFIX>_API_URL` and `<PREFIX>_API_KEY` of a GIF provider. An empty key counts as
 * none, so `GIFA_API_KEY=` in an env file switches the provider off rather than
 * sending empty keys upstream.
 */
const gifProviderConfig = (prefix: "GIFA" | "GIFB", defaultUrl: string): Config.Config<GifProviderSettings> =>
  Config.all({
    apiUrl: httpUrl(`${prefix}_API_URL`).pipe(Config.withDefault(defaultUrl)),
    apiKey: Config.Redacted(`${prefix}_API_KEY`).pipe(
      Config.option,
      Config.map(Option.filter((key) => Redacted.value(key).trim().length > 0))
    )
  })

/** SOCIAL_INSTANCE_URL: an http(s) URL of an origin, or one with a base path (no query). */
const socialInstanceUrlConfig = Config.URL("SOCIAL_INSTANCE_URL").pipe(
  Config.mapEffect((url) =>
    (url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === ""
      ? Effect.succeed(url.toString().replace(/\/$/, ""))
      : Effect.fail(invalidSetting(`SOCIAL_INSTANCE_URL: ${url.toString()} is not an http(s) base URL (without a query)`))),
  Config.option
)

/** A comma-separated list of addresses and CIDR ranges under `name`; one that is neither stops the start. */
const networksConfig = (name: string): Config.Config<ReadonlyArray<Network>> =>
  Config.String(name).pipe(
    Config.withDefault(""),
    Config.mapEffect((listed) => {
      const entries = listed.split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0)
      const wrong = entries.filter((entry) => parseNetwork(entry) === undefined)
      if (wrong.length > 0) return Effect.fail(invalidSetting(`${name}: ${wrong.join(", ")} is not an IP address or CIDR range`))
      return Effect.succeed(entries.flatMap((entry) => parseNetwork(entry) ?? []))
    })
  )

const metricsConfig: Config.Config<MetricsSettings> = Config.all({
  enabled: Config.Literals(["on", "off"], "METRICS").pipe(Config.map((v) => v === "on"), Config.withDefault(true)),
  port: Config.Port("METRICS_PORT").pipe(Config.option),
  host: Config.String("METRICS_HOST").pipe(Config.withDefault("127.0.0.1"))
})

const mediaFetchConfig: Config.Config<MediaFetchSettings> = Config.all({
  allowPrivate: Config.Boolean("MEDIA_FETCH_ALLOW_PRIVATE").pipe(Config.withDefault(false)),
  allowedNetworks: networksConfig("MEDIA_FETCH_ALLOWED_NETWORKS"),
  maxBytes: positiveInt("MEDIA_FETCH_MAX_BYTES", 10 * 1024 * 1024),
  timeoutMillis: positiveInt("MEDIA_FETCH_TIMEOUT_MS", 15_000)
})

/**
 * OTEL_TRACES_SAMPLER as OpenTelemetry names it, parent-based or not (a trace
 * continued from another process always keeps that process's decision here):
 * always_on (the default), always_off, traceidratio with OTEL_TRACES_SAMPLER_ARG
 * the ratio (default 1).
 */
const traceSampleRatioConfig: Config.Config<number> = Config.all({
  sampler: Config.Literals(
    ["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"],
    "OTEL_TRACES_SAMPLER"
  ).pipe(Config.withDefault("parentbased_always_on")),
  ratio: Config.schema(Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 })), "OTEL_TRACES_SAMPLER_ARG").pipe(Config.withDefault(1))
}).pipe(Config.map(({ sampler, ratio }) => sampler.endsWith("always_on") ? 1 : sampler.endsWith("always_off") ? 0 : ratio))

/** LOG_FORMAT: `json` or `pretty`; unset, JSON under NODE_ENV=production (log collectors read it), else pretty. */
const logFormatConfig: Config.Config<LogFormat> = Config.all({
  chosen: Config.Literals(["json", "pretty"], "LOG_FORMAT").pipe(Config.option),
  nodeEnv: Config.String("NODE_ENV").pipe(Config.withDefault("development"))
}).pipe(Config.map(({ chosen, nodeEnv }) => Option.getOrElse(chosen, () => nodeEnv === "production" ? "json" : "pretty")))

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
  shardAdvertisePort: Config.Port("SHARD_ADVERTISE_PORT").pipe(Config.option),
  shardLockExpirationSeconds: positiveInt("SHARD_LOCK_EXPIRATION_SECONDS", 6),
  actorCallTimeoutMillis: positiveInt("ACTOR_CALL_TIMEOUT_MS", 10_000),
  maxResidentActors: positiveInt("MAX_RESIDENT_ACTORS", 100_000),
  actorIdleMinutes: positiveInt("ACTOR_IDLE_MINUTES", 30),
  actorLocalReads: Config.Literals(["on", "off"], "ACTOR_LOCAL_READS").pipe(Config.map((v) => v === "on"), Config.withDefault(true)),
  adminBootstrapKey: Config.Redacted("ADMIN_BOOTSTRAP_KEY").pipe(Config.option),
  logRequests: Config.Boolean("LOG_REQUESTS").pipe(Config.withDefault(false)),
  publicUrl: publicUrlConfig,
  corsOrigins: corsOriginsConfig,
  smtpUrl: Config.Redacted("SMTP_URL").pipe(Config.option),
  mailFrom: Config.String("MAIL_FROM").pipe(Config.withDefault("Guildhall <no-reply@guildhall.localhost>")),
  smsProviderUrl: Config.Redacted("SMS_PROVIDER_URL").pipe(Config.option),
  webauthnRpId: Config.String("WEBAUTHN_RP_ID").pipe(Config.withDefault("localhost")),
  webauthnRpName: Config.String("WEBAUTHN_RP_NAME").pipe(Config.withDefault("Guildhall")),
  webauthnOrigins: Config.String("WEBAUTHN_ORIGINS").pipe(
    Config.map((list) => list.split(",").map((o) => o.trim()).filter((o) => o.length > 0)),
    Config.withDefault(["http://localhost:8080"])
  ),
  rateLimits: Config.Literals(["on", "off"], "RATE_LIMITS").pipe(Config.map((v) => v === "on"), Config.withDefault(true)),
  accountDeletionGraceDays: positiveInt("ACCOUNT_DELETION_GRACE_DAYS", 14),
  accountDeletionSweepSeconds: positiveInt("ACCOUNT_DELETION_SWEEP_SECONDS", 60),
  scheduledMessageSweepSeconds: positiveInt("SCHEDULED_MESSAGE_SWEEP_SECONDS", 5),
  messageDeletionSweepSeconds: positiveInt("MESSAGE_DELETION_SWEEP_SECONDS", 30),
  messageDeletionDelaySeconds: Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), "MESSAGE_DELETION_DELAY_SECONDS")
    .pipe(Config.withDefault(86_400)),
  discoveryMinMembers: positiveInt("DISCOVERY_MIN_MEMBERS", 5),
  mediaS3: mediaS3Config,
  gatewayUrl: Config.URL("GATEWAY_URL").pipe(Config.map((url) => url.toString().replace(/\/$/, "")), Config.option),
  gatewayHeartbeatMillis: positiveInt("GATEWAY_HEARTBEAT_INTERVAL_MS", 41_250),
  gatewayOutboundLimitBytes: positiveInt("GATEWAY_OUTBOUND_LIMIT_BYTES", 8 * 1024 * 1024),
  trustedProxies: networksConfig("TRUSTED_PROXIES"),
  dnsServer: dnsServerConfig,
  gifa: gifProviderConfig("GIFA", "https://tenor.googleapis.com/v2"),
  gifb: gifProviderConfig("GIFB", "https://api.klipy.com/api/v1"),
  gifProviderTimeoutMillis: positiveInt("GIF_PROVIDER_TIMEOUT_MS", 5_000),
  socialInstanceUrl: socialInstanceUrlConfig,
  mediaFetch: mediaFetchConfig,
  memesMaxPerUser: positiveInt("MEMES_MAX_PER_USER", DEFAULT_MAX_FAVORITE_MEMES),
  metrics: metricsConfig,
  otlpEndpoint: httpUrl("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(Config.option),
  otelServiceName: Config.NonEmptyString("OTEL_SERVICE_NAME").pipe(Config.option),
  otlpExportIntervalMillis: positiveInt("OTEL_BSP_SCHEDULE_DELAY", 5_000),
  otlpMaxBatchSize: positiveInt("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512),
  traceSampleRatio: traceSampleRatioConfig,
  logFormat: logFormatConfig,
  healthPort: Config.Port("HEALTH_PORT").pipe(Config.option)
}).pipe(Config.map(({ shardAdvertisePort, ...settings }) => ({
  ...settings,
  shardAdvertisePort: Option.getOrElse(shardAdvertisePort, () => settings.shardPort)
})))

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
