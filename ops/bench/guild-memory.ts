// `node --expose-gc ops/bench/guild-memory.ts`: what one guild actor of 10,000 members, and one
// of 100,000, takes to load and holds.
//
// Makes a scratch Postgres database (BENCH_PG_URL, default the local server), applies the
// migrations, seeds the guilds with ops/bench/member-seed.ts, then loads each guild's state the
// way its actor does (GuildRepo.load, timed) and builds the member-search index of that state.
// It reports the V8 heap in use before and after, each after a full collection (--expose-gc),
// with the state and index still referenced: what the actor keeps, not what loading allocated
// on the way. Targets: 10,000 members under 20 MB (issue 16); 100,000 members loaded in under
// 2 s and held in under 80 MB (issue 25). BENCH_MEMBERS=n,m measures other sizes.
// `npm run bench` runs it with the start script's flags (--max-semi-space-size=32) as well.
import { Database } from "../../src/platform/Database.ts"
import { AppConfig } from "../../src/platform/Config.ts"
import { Effect, Layer, Option, Redacted } from "effect"
import { searchIndex } from "../../shards/guild/members/SearchIndex.ts"
import { GuildRepo } from "../../shards/guild/Repo.ts"
import { Migrations } from "../../src/platform/Migrations.ts"
import { figuresOf, numberOf } from "./figures-line.ts"
import { runSql, scratchDatabase, seedMembers } from "./member-seed.ts"

const SIZES = (process.env["BENCH_MEMBERS"] ?? "10000,100000").split(",").map(Number)
/** The limits of a guild of `members`: memory always, load time from 100,000 members (issue 25). */
const targetsOf = (members: number) => members >= 100_000 ? { mb: 80, loadSeconds: 2 } : { mb: 20, loadSeconds: undefined }
const gc = (globalThis as { gc?: () => void }).gc

const heapUsed = () => {
  for (let i = 0; i < 3; i++) gc?.()
  return process.memoryUsage().heapUsed
}

/** What one guild's load took and what it holds. */
export interface GuildMemoryFigures {
  readonly members: number
  readonly indexed: number
  readonly loadSeconds: number
  readonly loadedOnly: number
  readonly withIndex: number
}

const LINE = "guildMemory"

/** The figures of the line this script prints last, as ops/bench/run.ts reads them from its output. */
export const guildMemoryOf = (line: string): ReadonlyArray<GuildMemoryFigures> | undefined => {
  const list = figuresOf(line, LINE)
  if (!Array.isArray(list)) return undefined
  return list.map((item: unknown) => {
    const number = (key: keyof GuildMemoryFigures) => numberOf(item, key)
    return {
      members: number("members"),
      indexed: number("indexed"),
      loadSeconds: number("loadSeconds"),
      loadedOnly: number("loadedOnly"),
      withIndex: number("withIndex")
    }
  })
}

/** The targets of one guild's figures. */
export const guildMemoryTargets = (f: GuildMemoryFigures) => {
  const target = targetsOf(f.members)
  const mb = f.withIndex / 1024 / 1024
  const members = f.members.toLocaleString("en")
  return [
    {
      name: `guild actor of ${members} members < ${target.mb} MB (V8 heap, state and member-search index)`,
      measured: `${mb.toFixed(1)} MB`,
      holds: mb < target.mb
    },
    ...(target.loadSeconds === undefined ? [] : [{
      name: `guild actor of ${members} members loads from Postgres < ${target.loadSeconds} s`,
      measured: `${f.loadSeconds.toFixed(2)} s`,
      holds: f.loadSeconds < target.loadSeconds
    }])
  ]
}

const main = async () => {
  if (gc === undefined) throw new Error("run with node --expose-gc, or the figures include garbage")
  if (!SIZES.every((n) => Number.isInteger(n) && n > 0)) throw new Error("BENCH_MEMBERS: member counts separated by commas")
  const db = await scratchDatabase()
  try {
    const warmupId = "1000000000000000002"
    const guildIds = SIZES.map((_, i) => String(1000000000000000010n + BigInt(i)))
    // The project's own database layer: int8 ids arrive as the decimal strings the loads decode.
    const sqlLayer = Database.layer.pipe(Layer.provide(AppConfig.layerWith({ databaseUrl: Option.some(Redacted.make(db.url)) })))
    await Effect.runPromise(Effect.provide(Migrations.run, sqlLayer))
    await runSql(db.url, [
      "INSERT INTO users (id, username, discriminator) VALUES (1000000000000000000, 'owner', '0001')",
      `INSERT INTO guilds (id, name, owner_id) VALUES (${warmupId}, 'warm-up', 1000000000000000000)`,
      ...guildIds.flatMap((id) => [
        `INSERT INTO guilds (id, name, owner_id) VALUES (${id}, 'memory', 1000000000000000000)`,
        `INSERT INTO guild_roles (id, guild_id, name, permissions, position) VALUES (${id}, ${id}, '@everyone', 0, 0)`
      ])
    ])
    await seedMembers(db.url, warmupId, 100)
    for (const [i, id] of guildIds.entries()) await seedMembers(db.url, id, SIZES[i] ?? 0)
    await runSql(db.url, ["VACUUM ANALYZE"])
    // Each guild in a run of its own: a generator keeps its locals across its yields, so the
    // state of one guild could still be referenced (or be freed) while the next is measured.
    const measureOne = (guildId: string) =>
      Effect.runPromise(
        Effect.gen(function*() {
          const repo = yield* GuildRepo
          // Warm the code paths on a small guild, so "before" already holds compiled code and pools
          // (not a big guild: the fiber may keep its last result referenced).
          const warm = yield* repo.load(warmupId)
          if (warm !== undefined) searchIndex(warm)
          const before = heapUsed()
          const started = performance.now()
          const state = yield* repo.load(guildId)
          const loadSeconds = (performance.now() - started) / 1000
          if (state === undefined) return yield* Effect.die(new Error("the seeded guild did not load"))
          const loadedOnly = heapUsed() - before
          const index = searchIndex(state)
          const withIndex = heapUsed() - before
          return { members: state.members.size, indexed: index.entries.length, loadSeconds, loadedOnly, withIndex }
        }).pipe(Effect.provide(GuildRepo.layer.pipe(Layer.provide(sqlLayer))), Effect.scoped)
      )
    const measured = []
    for (const guildId of guildIds) measured.push(await measureOne(guildId))
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2)
    for (const held of measured) {
      process.stdout.write(
        [
          `guild of ${held.members} members (${held.indexed} indexed for search): loaded in ${held.loadSeconds.toFixed(2)} s, ` +
          `${mb(held.loadedOnly)} MB as loaded, ${mb(held.withIndex)} MB with its search index`,
          ...guildMemoryTargets(held).map((t) => `  ${t.name}: ${t.measured} ${t.holds ? "holds" : "DOES NOT HOLD"}`),
          ""
        ].join("\n")
      )
    }
    process.stdout.write(`${JSON.stringify({ guildMemory: measured })}\n`)
  } finally {
    await db.drop()
  }
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    process.stderr.write(`guild-memory: ${error instanceof Error ? error.stack : String(error)}\n`)
    process.exit(1)
  })
}
