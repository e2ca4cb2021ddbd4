/**
 * The database of a Guildhall process: `PgClient` and `SqlClient` from
 * `@effect/sql-pg`, talking either to a real Postgres (`DATABASE_URL`) or to an
 * embedded PGlite under `DATA_DIR`, which is served to the very same client
 * over the Postgres wire protocol, so everything above the client has one code
 * path.
 *
 * Embedded mode in detail:
 *
 * - PGlite keeps its files in `${dataDir}/pglite`; the directory is created on
 *   first start (initdb takes a few seconds; reopening a few hundred ms).
 * - `@electric-sql/pglite-socket` serves it on the Unix socket
 *   `${dataDir}/.s.PGSQL.5432` (so `psql -h <dataDir> -U postgres` works for
 *   debugging), or on 127.0.0.1 with a free port when a socket cannot be used
 *   (path too long for `sun_path`, or a filesystem without sockets).
 * - PGlite is one Postgres backend. pglite-socket multiplexes its connections
 *   onto it message by message and only keeps a connection's explicit
 *   transaction together; unnamed statements/portals of the extended protocol,
 *   session settings and advisory locks are shared by all connections. So the
 *   client pool has exactly ONE connection: transactions reserve it, and every
 *   other fiber waits for it. Consequence: anything that holds a connection for
 *   long (`PgClient.listen`, `sql.reserve`, a long stream or transaction) blocks
 *   all other queries of the process in embedded mode.
 * - `${dataDir}/pglite.lock` (holding the pid) keeps a second process (or a
 *   second layer in this process) from opening the same files, which PGlite
 *   itself does not prevent and which would corrupt the database.
 * - Closing the scope closes the client, then the socket server, then PGlite,
 *   then releases the lock.
 *
 * In both modes names are not transformed (snake_case columns as they are),
 * and int8 values (also in int8[] arrays) decode to decimal strings, since
 * snowflake ids do not fit a JS number; int8 parameters accept string, bigint
 * or safe-integer number.
 */
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as PgTypes from "@effect/sql-pg/PgTypes"
import { Effect, Layer, Option, Redacted, Result, Schema } from "effect"
import type * as Scope from "effect/Scope"
import type * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { AppConfig } from "./Config.ts"

/** The embedded database could not be opened, served or locked. */
export class EmbeddedDatabaseError extends Schema.TaggedError<EmbeddedDatabaseError>()("EmbeddedDatabaseError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

// -----------------------------------------------------------------------------
// int8 as string
// -----------------------------------------------------------------------------

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

const toInt64 = (value: unknown): bigint | undefined => {
  let big: bigint | undefined
  if (typeof value === "bigint") big = value
  else if (typeof value === "number" && Number.isSafeInteger(value)) big = BigInt(value)
  else if (typeof value === "string" && /^[+-]?\d+$/.test(value.trim())) big = BigInt(value.trim())
  return big !== undefined && big >= INT64_MIN && big <= INT64_MAX ? big : undefined
}

const readInt8 = (bytes: Uint8Array, offset: number, size: number): Result.Result<string, PgTypes.CodecError> =>
  size === 8
    ? Result.succeed(new DataView(bytes.buffer, bytes.byteOffset + offset, 8).getBigInt64(0).toString())
    : Result.fail(new PgTypes.CodecError({ message: `int8 value of ${size} bytes, expected 8` }))

/** int8 decoded as a decimal string; encoded from a string, bigint or safe integer. */
const int8AsString: PgTypes.Codec<unknown> = {
  encode: (value) => {
    const big = toInt64(value)
    if (big === undefined) {
      return Result.fail(new PgTypes.CodecError({ message: `Expected a 64-bit integer for int8, got ${String(value)}` }))
    }
    const bytes = new Uint8Array(8)
    new DataView(bytes.buffer).setBigInt64(0, big)
    return Result.succeed(bytes)
  },
  decode: (bytes) => readInt8(bytes, 0, bytes.length),
  read: readInt8
}

const makeTypes = (): PgTypes.Registry => {
  const registry = PgTypes.makeRegistry()
  registry.register(PgTypes.OID.int8, int8AsString, { arrayOid: PgTypes.OID.int8Array })
  return registry
}

/**
 * The `application_name` this process's connections carry: `guildhall-` and a
 * tag of the process, so its connections can be told apart in pg_stat_activity
 * (MetricsExport.ts counts its pool there).
 */
export const DATABASE_APPLICATION_NAME = `guildhall-${randomBytes(4).toString("hex")}`

/** Settings both modes share. */
const clientSettings = {
  applicationName: DATABASE_APPLICATION_NAME,
  // Columns and identifiers are used exactly as written (snake_case).
  transformResultNames: undefined,
  transformQueryNames: undefined
} as const

/**
 * `@effect/sql-pg@4.0.5` predates `SqlClient.driver` (effect 4.1), which is
 * then `undefined` at run time. Consumers such as `SqlRunnerStorage` look at it
 * to learn whether every statement shares one session, which is exactly what
 * the embedded mode is, so name the driver.
 */
const withDriver = (client: PgClient.PgClient, driver: "pg" | "pglite"): PgClient.PgClient =>
  Object.assign(client, { driver })

// -----------------------------------------------------------------------------
// real Postgres
// -----------------------------------------------------------------------------

const makePostgres = (url: Redacted.Redacted) =>
  Effect.map(
    PgClient.make({ ...clientSettings, url, types: makeTypes() }),
    (client) => withDriver(client, "pg")
  )

// -----------------------------------------------------------------------------
// embedded PGlite
// -----------------------------------------------------------------------------

/** Longest Unix socket path we try; `sun_path` holds 108 bytes on Linux, 104 on macOS. */
const maxSocketPathBytes = 100

/** Layers of this process holding a data directory right now. */
const openHere = new Set<string>()

const embeddedError = (message: string) => (cause: unknown) => new EmbeddedDatabaseError({ message, cause })

const isProcessAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "EPERM"
  }
}

/**
 * Takes `${root}/pglite.lock` for this process, or fails when a live process
 * (or another layer of this one) holds it. A lock left by a dead process is
 * taken over.
 */
const lockDataDir = (root: string): Effect.Effect<void, EmbeddedDatabaseError, Scope.Scope> => {
  const file = Path.join(root, "pglite.lock")
  const take = Effect.try({
    try: () => {
      if (openHere.has(root)) return `this process (pid ${process.pid})`
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          Fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx" })
          openHere.add(root)
          return undefined
        } catch (error) {
          if (!(error instanceof Error && "code" in error && error.code === "EEXIST")) throw error
        }
        const pid = Number.parseInt(Fs.readFileSync(file, "utf8"), 10)
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isProcessAlive(pid)) return `process ${pid}`
        Fs.rmSync(file, { force: true })
      }
      return "another process starting at the same time"
    },
    catch: embeddedError(`cannot lock the embedded database at ${root}`)
  }).pipe(
    Effect.flatMap((holder) =>
      holder === undefined
        ? Effect.void
        : Effect.fail(
          new EmbeddedDatabaseError({
            message: `the embedded database at ${root} is in use by ${holder}; stop it first ` +
              `(or delete ${file} if no such process runs)`
          })
        )
    )
  )
  const release = Effect.sync(() => {
    openHere.delete(root)
    Fs.rmSync(file, { force: true })
  })
  return Effect.acquireRelease(take, () => release)
}

const openPGlite = (directory: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => PGlite.create(directory),
      catch: embeddedError(`cannot open the embedded database at ${directory}`)
    }),
    (db) => Effect.promise(() => db.close().catch(() => undefined))
  )

type Endpoint = { readonly path: string } | { readonly host: string; readonly port: number }

/** Serves `db` on a Unix socket under `root`, or on 127.0.0.1 when that fails. */
const serve = (db: PGlite, root: string): Effect.Effect<Endpoint, EmbeddedDatabaseError, Scope.Scope> => {
  // The client pool holds one connection; the extra slots only let a replacement
  // connect before the server has noticed the old one closing, and let a
  // CancelRequest (sent on its own connection, then ignored) in.
  const maxConnections = 4
  const start = (options: { path: string } | { host: string; port: number }) =>
    Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const server = new PGLiteSocketServer({ db, maxConnections, ...options })
          await server.start()
          return server
        },
        catch: (cause) => cause
      }),
      (server) => Effect.promise(() => server.stop().catch(() => undefined))
    )

  const socketPath = Path.join(root, ".s.PGSQL.5432")
  const onUnixSocket = Effect.gen(function*() {
    if (Buffer.byteLength(socketPath) > maxSocketPathBytes) {
      return yield* Effect.fail(`socket path ${socketPath} is too long`)
    }
    // A socket file left by a crashed process: ours now, since we hold the lock.
    yield* Effect.try({ try: () => Fs.rmSync(socketPath, { force: true }), catch: (cause) => cause })
    yield* start({ path: socketPath })
    // Trust auth: only our user may connect (best effort, Linux honours it).
    yield* Effect.ignore(Effect.try({ try: () => Fs.chmodSync(socketPath, 0o600), catch: (cause) => cause }))
    return { path: socketPath } satisfies Endpoint
  })
  const onLoopback = Effect.gen(function*() {
    const server = yield* start({ host: "127.0.0.1", port: 0 })
    const [host, port] = server.getServerConn().split(":")
    return { host: host ?? "127.0.0.1", port: Number(port) } satisfies Endpoint
  })

  return onUnixSocket.pipe(
    Effect.catch((reason) =>
      Effect.logWarning(`embedded database: no Unix socket (${String(reason)}); serving it on 127.0.0.1`).pipe(
        Effect.andThen(onLoopback)
      )
    ),
    Effect.mapError(embeddedError(`cannot serve the embedded database under ${root}`))
  )
}

const makeEmbedded = (dataDir: string) =>
  Effect.gen(function*() {
    const root = Path.resolve(dataDir)
    const started = Date.now()
    yield* Effect.try({
      try: () => Fs.mkdirSync(root, { recursive: true }),
      catch: embeddedError(`cannot create the data directory ${root}`)
    })
    yield* lockDataDir(root)
    const db = yield* openPGlite(Path.join(root, "pglite"))
    const endpoint = yield* serve(db, root)
    const client = yield* PgClient.make({
      ...clientSettings,
      ...endpoint,
      username: "postgres",
      database: "postgres",
      types: makeTypes(),
      // PGlite is single-connection; see the module comment.
      maxConnections: 1,
      minConnections: 1,
      multiplex: false
    })
    yield* Effect.logInfo(`embedded database ready in ${Date.now() - started} ms`).pipe(
      Effect.annotateLogs({ dataDir: root, endpoint: "path" in endpoint ? endpoint.path : `${endpoint.host}:${endpoint.port}` })
    )
    return withDriver(client, "pglite")
  })

// -----------------------------------------------------------------------------
// layer
// -----------------------------------------------------------------------------

/**
 * `PgClient` and `SqlClient` for the configured database: `AppConfig.databaseUrl`
 * when set, otherwise the embedded PGlite under `AppConfig.dataDir`. Everything
 * is released, in reverse order of acquisition, when the layer's scope closes.
 */
export const layer: Layer.Layer<
  PgClient.PgClient | SqlClient.SqlClient,
  SqlError | EmbeddedDatabaseError,
  AppConfig
> = PgClient.layerFrom(
  Effect.gen(function*() {
    const { databaseUrl, dataDir } = yield* AppConfig
    return Option.isSome(databaseUrl) ? yield* makePostgres(databaseUrl.value) : yield* makeEmbedded(dataDir)
  })
)

/** `Database.layer` for `import { Database } from "./platform/Database.ts"`. */
export const Database = { layer } as const
