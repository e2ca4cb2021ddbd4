// `node --expose-gc ops/bench/guild-memory.ts`: the memory one 10,000-member guild actor holds.
//
// Makes a scratch Postgres database (BENCH_PG_URL, default the local server), applies the
// migrations, seeds a guild of BENCH_MEMBERS (10,000) members with ops/bench/member-seed.ts,
// then loads the guild's state the way its actor does (GuildRepo.load) and builds the
// member-search index of that state. It reports the V8 heap in use before and after, each
// after a full collection (--expose-gc), with the state and index still referenced: what
// the actor keeps, not what loading allocated on the way. Target: under 20 MB.
import { Database } from "../../src/platform/Database.ts"
import { AppConfig } from "../../src/platform/Config.ts"
import { Effect, Layer, Option, Redacted } from "effect"
import { searchIndex } from "../../shards/guild/members/MemberSearch.ts"
import { GuildRepo } from "../../shards/guild/Repo.ts"
import { Migrations } from "../../src/platform/Migrations.ts"
import { runSql, scratchDatabase, seedMembers } from "./member-seed.ts"

const MEMBERS = Number(process.env["BENCH_MEMBERS"] ?? "10000")
const TARGET_MB = 20
const gc = (globalThis as { gc?: () => void }).gc

const heapUsed = () => {
  for (let i = 0; i < 3; i++) gc?.()
  return process.memoryUsage().heapUsed
}

const main = async () => {
  if (gc === undefined) throw new Error("run with node --expose-gc, or the figures include garbage")
  const db = await scratchDatabase()
  try {
    const guildId = "1000000000000000001"
    const warmupId = "1000000000000000002"
    // The project's own database layer: int8 ids arrive as the decimal strings the loads decode.
    const sqlLayer = Database.layer.pipe(Layer.provide(AppConfig.layerWith({ databaseUrl: Option.some(Redacted.make(db.url)) })))
    await Effect.runPromise(Effect.provide(Migrations.run, sqlLayer))
    await runSql(db.url, [
      "INSERT INTO users (id, username, discriminator) VALUES (1000000000000000000, 'owner', '0001')",
      `INSERT INTO guilds (id, name, owner_id) VALUES (${guildId}, 'memory', 1000000000000000000)`,
      `INSERT INTO guild_roles (id, guild_id, name, permissions, position) VALUES (${guildId}, ${guildId}, '@everyone', 0, 0)`,
      `INSERT INTO guilds (id, name, owner_id) VALUES (${warmupId}, 'warm-up', 1000000000000000000)`
    ])
    await seedMembers(db.url, warmupId, 100)
    await seedMembers(db.url, guildId, MEMBERS)
    const held = await Effect.runPromise(
      Effect.gen(function*() {
        const repo = yield* GuildRepo
        // Warm the code paths on a small guild, so "before" already holds compiled code and pools
        // (not the big guild: the fiber may keep its last result referenced).
        const warm = yield* repo.load(warmupId)
        if (warm !== undefined) searchIndex(warm)
        const before = heapUsed()
        const state = yield* repo.load(guildId)
        if (state === undefined) return yield* Effect.die(new Error("the seeded guild did not load"))
        const loadedOnly = heapUsed() - before
        const index = searchIndex(state)
        const withIndex = heapUsed() - before
        return { members: state.members.size, indexed: index.entries.length, loadedOnly, withIndex }
      }).pipe(Effect.provide(GuildRepo.layer.pipe(Layer.provide(sqlLayer))), Effect.scoped)
    )
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2)
    process.stdout.write(
      [
        `guild of ${held.members} members (${held.indexed} indexed for search):`,
        `  state as loaded by GuildRepo.load: ${mb(held.loadedOnly)} MB`,
        `  state + member-search index:      ${mb(held.withIndex)} MB`,
        `  target < ${TARGET_MB} MB: ${held.withIndex / 1024 / 1024 < TARGET_MB ? "holds" : "DOES NOT HOLD"}`,
        ""
      ].join("\n")
    )
  } finally {
    await db.drop()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`guild-memory: ${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
