import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { GUILD_RECORD_COLUMNS, type GuildRecord } from "../../../shards/guild/GuildRecord.ts"
import { recordChange } from "../../../shards/guild/operations/Settings.ts"
import { GuildRepo } from "../../../shards/guild/Repo.ts"
import { createGuild } from "../../../shards/guild/State.ts"
import { AppConfig, settingsConfig } from "../../../src/platform/Config.ts"
import * as Database from "../../../src/platform/Database.ts"
import * as Migrations from "../../../src/platform/Migrations.ts"
import { scratchDatabase } from "../../support/Postgres.ts"
import { defaultLimits } from "../../../src/model/Limits.ts"

/** The guild repository on a scratch database with the schema applied. */
const Repo = Layer.unwrap(Effect.gen(function*() {
  const url = yield* scratchDatabase
  const settings = { ...(yield* settingsConfig), databaseUrl: Option.some(Redacted.make(url)) }
  const database = Database.layer.pipe(Layer.provide(Layer.succeed(AppConfig, settings)))
  return GuildRepo.layer.pipe(Layer.provideMerge(Migrations.layer), Layer.provideMerge(database))
}))

const owner = { id: "1", username: "owner", discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 }
const base = createGuild({ guildId: "100", channelId: "101", owner, name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })

/**
 * A value for every column of the record but the id, each unlike the new
 * guild's. Typed as the whole record: a column added to GuildRecord.ts does not
 * compile here until it has a value, and then this test checks it survives a reload.
 */
const everyColumn: Omit<GuildRecord, "id"> = {
  name: "Renamed",
  icon: "icon-hash",
  banner: "banner-hash",
  splash: "splash-hash",
  splash_card_alignment: 2,
  embed_splash: "embed-hash",
  vanity_url_code: "hall",
  owner_id: "2",
  system_channel_id: "201",
  system_channel_flags: 3,
  rules_channel_id: "202",
  afk_channel_id: "203",
  afk_timeout: 600,
  features: ["DETACHED_BANNER", "COMMUNITY"],
  verification_level: 4,
  mfa_level: 1,
  nsfw_level: 3,
  nsfw: true,
  content_warning_level: 2,
  content_warning_text: "careful",
  explicit_content_filter: 2,
  default_message_notifications: 1,
  disabled_operations: 5,
  message_history_cutoff: "2026-02-01T12:00:00.000Z"
}

layer(Repo, { timeout: 120_000, excludeTestServices: true })("guild record", (it) => {
  it.effect("every column of the record is persisted by a change and loaded back", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* GuildRepo
      yield* sql`INSERT INTO users (id, username, discriminator) VALUES (1, 'owner', '0001'), (2, 'heir', '0002')`
      yield* repo.insertGuild(base, "create-100", null)
      const created = yield* repo.load("100")
      assert.deepStrictEqual(created?.guild, base.guild)
      assert.strictEqual(created?.createdAt, base.createdAt)

      for (const column of GUILD_RECORD_COLUMNS) {
        if (column !== "id") assert.notDeepEqual(everyColumn[column], base.guild[column], column)
      }
      const context = { guildId: "100", actorId: "1", operationId: "9001", reason: null, limits: defaultLimits, now: Date.parse("2026-03-01T00:00:00Z") }
      const decision = recordChange(base, everyColumn, context)
      yield* decision.persist ?? Effect.void
      const reloaded = yield* repo.load("100")
      assert.deepStrictEqual(reloaded?.guild, decision.next.guild)
      assert.deepStrictEqual(reloaded?.guild, { ...base.guild, ...everyColumn })
    }).pipe(Effect.orDie))
})
