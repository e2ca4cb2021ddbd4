// `node --expose-gc ops/bench/user-memory.ts`: the memory one idle user actor holds, with
// everything the cluster keeps for it (the entity, its mailbox, its handlers, its state).
//
// Makes a scratch Postgres database (BENCH_PG_URL, default the local server), seeds
// BENCH_USERS (2,000) accounts straight into it (each in BENCH_USER_GUILDS (5) guilds, every
// other one with stored settings), starts the embedded actor cluster in this process and
// wakes each user's actor with one GetAccount read through its mailbox, as an API process
// does when the actor lives elsewhere. The V8 heap in use is taken before and after, each
// after a full collection (--expose-gc), with the actors resident; the difference divided
// by the count is the figure. Then as many entities of an empty kind (no state, one empty
// call) are woken the same way: what the engine keeps for any resident entity, the floor
// under the figure. `approximateBytes` (shards/user/State.ts, what the gateway stats show)
// is printed beside it as a sanity check. Target: under 4 KB an actor.
// The last line is the figures as JSON, for ops/bench/run.ts. BENCH_USER_HEAP_SNAPSHOTS=dir
// writes a heap snapshot at each of the three moments, to compare in DevTools.
import { Effect, Layer, Option, Redacted, References } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { writeHeapSnapshot } from "node:v8"
import { LiveActors } from "../../shards/LiveActors.ts"
import { embeddedActorsLayer } from "../../shards/Layers.ts"
import { getAccount } from "../../shards/user/operations/Account.ts"
import { travellingQuery } from "../../shards/user/operations/index.ts"
import { User } from "../../shards/user/Protocol.ts"
import { AppConfig, settingsConfig } from "../../src/platform/Config.ts"
import { intEnv } from "./env.ts"
import { runSql, scratchDatabase } from "./member-seed.ts"
import { figuresOf, numberOf } from "./figures-line.ts"

const USERS = intEnv("BENCH_USERS", 2000)
const GUILDS = intEnv("BENCH_USER_GUILDS", 5)
const WARMUP = 200
const AT_ONCE = 16
export const TARGET_KB = 4
const gc = (globalThis as { gc?: () => void }).gc

/** What one run measured. */
export interface UserMemoryFigures {
  readonly actors: number
  readonly guildsEach: number
  readonly heapBytesPerActor: number
  /** The same for an entity that holds nothing and answers one empty call: what the engine keeps for any entity. */
  readonly floorBytesPerEntity: number
  readonly approximateBytesPerActor: number
}

/** With BENCH_USER_HEAP_SNAPSHOTS=dir, a heap snapshot there at each measuring, to see where the bytes go. */
const snapshotDir = process.env["BENCH_USER_HEAP_SNAPSHOTS"]

/** An entity with no state and one empty call: the engine's own cost of a resident entity, for comparison. */
const Floor = Entity.make("BenchFloor", [Rpc.make("Ping")])
const floorLayer = Floor.toLayer({ Ping: () => Effect.void }, { maxIdleTime: "30 minutes" })

const heapUsed = (moment: string) => {
  for (let i = 0; i < 3; i++) gc?.()
  const used = process.memoryUsage().heapUsed
  if (snapshotDir !== undefined) writeHeapSnapshot(join(snapshotDir, `user-memory-${moment}.heapsnapshot`))
  return used
}

/** Users `first`..`first + count - 1`, in every guild of `guildIds`, every other one with stored settings. */
const seedUsers = (url: string, first: bigint, count: number, guildIds: ReadonlyArray<string>) =>
  runSql(url, [
    `INSERT INTO users (id, username, discriminator, global_name, email, email_verified, password_hash, date_of_birth)
     SELECT ${first} + g, 'user_' || (${first} + g), lpad((g % 10000)::text, 4, '0'),
            CASE WHEN g % 2 = 0 THEN 'User ' || g END, 'user' || (${first} + g) || '@example.com', true,
            '$argon2id$v=19$m=19456,t=2,p=1$bench$bench', '2000-01-01'
     FROM generate_series(0, ${count - 1}) AS g`,
    `INSERT INTO user_settings (user_id, data)
     SELECT ${first} + g, '{"message_display_compact": true, "gif_auto_play": false}'::jsonb
     FROM generate_series(0, ${count - 1}) AS g WHERE g % 2 = 0`,
    ...guildIds.map((guildId) =>
      `INSERT INTO guild_members (guild_id, user_id) SELECT ${guildId}, ${first} + g FROM generate_series(0, ${count - 1}) AS g`
    )
  ])

export const measureUserMemory = async (): Promise<UserMemoryFigures> => {
  if (gc === undefined) throw new Error("run with node --expose-gc, or the figures include garbage")
  const db = await scratchDatabase()
  const dataDir = mkdtempSync(join(tmpdir(), "guildhall-user-memory-"))
  try {
    const ownerId = 1000000000000000000n
    const guildIds = Array.from({ length: GUILDS }, (_, i) => String(1000000000000000001n + BigInt(i)))
    const warmFirst = 1100000000000000000n
    const first = 1200000000000000000n
    const program = Effect.gen(function*() {
      // The actor layer applied the migrations: the rows can go in now.
      yield* Effect.promise(() =>
        runSql(db.url, [
          `INSERT INTO users (id, username, discriminator) VALUES (${ownerId}, 'owner', '0001')`,
          ...guildIds.flatMap((id) => [
            `INSERT INTO guilds (id, name, owner_id) VALUES (${id}, 'memory', ${ownerId})`,
            `INSERT INTO guild_roles (id, guild_id, name, permissions, position) VALUES (${id}, ${id}, '@everyone', 0, 0)`
          ])
        ])
      )
      yield* Effect.promise(() => seedUsers(db.url, warmFirst, WARMUP, guildIds))
      yield* Effect.promise(() => seedUsers(db.url, first, USERS, guildIds))
      const client = yield* User.client
      const live = yield* LiveActors
      const floor = yield* Floor.client
      const query = yield* travellingQuery(getAccount, getAccount.query.make({}))
      const ids = (from: bigint, count: number) => Array.from({ length: count }, (_, i) => String(from + BigInt(i)))
      const wake = (from: bigint, count: number) =>
        Effect.forEach(ids(from, count), (id) => client(id).Read({ viewerId: id, query }), { concurrency: AT_ONCE, discard: true })
      const wakeFloor = (from: bigint, count: number) =>
        Effect.forEach(ids(from, count), (id) => floor(id).Ping(), { concurrency: AT_ONCE, discard: true })
      // Compiled code, pools and the engine's tables first, on other users.
      yield* wake(warmFirst, WARMUP)
      yield* wakeFloor(warmFirst, WARMUP)
      const before = heapUsed("before")
      yield* wake(first, USERS)
      const after = heapUsed("after")
      yield* wakeFloor(first, USERS)
      const afterFloor = heapUsed("after-floor")
      let approximate = 0
      let resident = 0
      for (let i = 0; i < USERS; i++) {
        const entry = live.users.get(String(first + BigInt(i)))
        if (entry === undefined) continue
        resident++
        approximate += entry.memory
      }
      if (resident !== USERS) return yield* Effect.die(new Error(`${USERS - resident} of ${USERS} actors are not resident`))
      return {
        actors: USERS,
        guildsEach: GUILDS,
        heapBytesPerActor: (after - before) / USERS,
        floorBytesPerEntity: (afterFloor - after) / USERS,
        approximateBytesPerActor: approximate / USERS
      }
    })
    const settings = { ...(await Effect.runPromise(settingsConfig)), dataDir, databaseUrl: Option.some(Redacted.make(db.url)) }
    return await Effect.runPromise(
      program.pipe(
        Effect.provide(
          Layer.provideMerge(floorLayer, embeddedActorsLayer(settings)).pipe(Layer.provide(Layer.succeed(AppConfig, settings)))
        ),
        Effect.scoped,
        // The migrations' log lines would bury the figures.
        Effect.provideService(References.MinimumLogLevel, "Warn")
      )
    )
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
    await db.drop()
  }
}

const LINE = "userMemory"

/** The figures from this script's last line, or undefined when `line` is not that line. */
export const userMemoryOf = (line: string): UserMemoryFigures | undefined => {
  const f = figuresOf(line, LINE)
  if (typeof f !== "object" || f === null) return undefined
  const number = (key: keyof UserMemoryFigures) => numberOf(f, key)
  return {
    actors: number("actors"),
    guildsEach: number("guildsEach"),
    heapBytesPerActor: number("heapBytesPerActor"),
    floorBytesPerEntity: number("floorBytesPerEntity"),
    approximateBytesPerActor: number("approximateBytesPerActor")
  }
}

/** The figures as ops/bench/run.ts shows them: its target. */
export const userMemoryTarget = (f: UserMemoryFigures) => {
  const kb = f.heapBytesPerActor / 1024
  return {
    name: `idle user actor < ${TARGET_KB} KB (V8 heap, ${f.actors} actors in ${f.guildsEach} guilds each)`,
    measured: `${kb.toFixed(2)} KB (an empty entity: ${(f.floorBytesPerEntity / 1024).toFixed(2)} KB)`,
    holds: kb < TARGET_KB
  }
}

if (import.meta.main) {
  try {
    const f = await measureUserMemory()
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`
    process.stdout.write(
      [
        `${f.actors} idle user actors, each in ${f.guildsEach} guilds (V8 heap after a full collection):`,
        `  per actor:                           ${kb(f.heapBytesPerActor)}`,
        `  approximateBytes of the state (mean): ${kb(f.approximateBytesPerActor)}`,
        `  an empty entity (the engine's floor): ${kb(f.floorBytesPerEntity)}`,
        `  target < ${TARGET_KB} KB: ${f.heapBytesPerActor / 1024 < TARGET_KB ? "holds" : "DOES NOT HOLD"}`,
        JSON.stringify({ [LINE]: f }),
        ""
      ].join("\n")
    )
  } catch (error) {
    process.stderr.write(`user-memory: ${error instanceof Error ? error.stack : String(error)}\n`)
    process.exitCode = 1
  }
}
