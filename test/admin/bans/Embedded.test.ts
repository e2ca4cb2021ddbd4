import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll } from "vitest"
import { BansRepo } from "../../../src/admin/bans/Repo.ts"
import { IpBanList } from "../../../src/admin/bans/IpBanList.ts"
import { AppConfig } from "../../../src/platform/Config.ts"
import * as Database from "../../../src/platform/Database.ts"
import * as Migrations from "../../../src/platform/Migrations.ts"
import { parseNetwork } from "../../../src/platform/IpAddress.ts"

/*
 * `npm start` without DATABASE_URL runs on PGlite: the ban queries (cidr,
 * `>>=`, the GiST index of 0032) must work there as on Postgres.
 */
const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "guildhall-bans-"))
const schemaDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "guildhall-bans-schema-"))
Fs.copyFileSync(Path.join(Migrations.directory, "0032_instance_bans.sql"), Path.join(schemaDir, "0032_instance_bans.sql"))
afterAll(() => {
  for (const dir of [dataDir, schemaDir]) Fs.rmSync(dir, { recursive: true, force: true })
})

const database = Layer.fresh(Database.layer).pipe(
  Layer.provide(AppConfig.layerWith({ dataDir, databaseUrl: Option.none(), redisUrl: Option.none() }))
)
const migrated = Layer.effectDiscard(Migrations.runFrom(schemaDir)).pipe(Layer.provideMerge(database))
const range = (text: string) => parseNetwork(text) ?? { family: 4 as const, network: 0n, prefix: 0 }

describe("bans on the embedded PGlite", () => {
  it.live("ranges, addresses, emails, phones and reservations", () =>
    Effect.gen(function*() {
      const repo = yield* BansRepo
      yield* repo.addIp(range("198.51.100.0/24"))
      yield* repo.addIp(range("198.51.100.0/24"))
      yield* repo.addIp(range("::ffff:192.0.2.7"))
      yield* repo.addIp(range("2001:db8::/32"))
      assert.deepStrictEqual(yield* repo.ips(), ["198.51.100.0/24", "192.0.2.7", "2001:db8::/32"])
      assert.deepStrictEqual(yield* repo.ips(1), ["198.51.100.0/24"])
      assert.isTrue(yield* repo.ipBanned(range("198.51.100.200")))
      assert.isTrue(yield* repo.ipBanned(range("198.51.100.128/25")))
      assert.isFalse(yield* repo.ipBanned(range("198.51.0.0/16")))
      assert.isFalse(yield* repo.ipBanned(range("198.51.101.1")))
      assert.isTrue(yield* repo.ipBanned(range("192.0.2.7")))
      assert.isTrue(yield* repo.ipBanned(range("2001:db8:1::5")))

      // The in-memory list, read when built, reads the same rows when told of a change.
      const list = yield* IpBanList
      assert.isFalse(list.banned("198.51.100.9"))
      yield* list.changed
      assert.isTrue(list.banned("::ffff:198.51.100.9"))
      assert.isFalse(list.banned("203.0.113.1"))
      yield* repo.removeIp(range("198.51.100.0/24"))
      yield* list.changed
      assert.isFalse(list.banned("198.51.100.9"))

      yield* repo.addEmail("Someone@Example.com")
      assert.isTrue(yield* repo.emailBanned("someone@example.COM"))
      assert.deepStrictEqual(yield* repo.emails(), ["someone@example.com"])
      yield* repo.addPhone("+14155550123")
      assert.isTrue(yield* repo.phoneBanned("+14155550123"))
      yield* repo.reserve("Reserved@Example.com", "123456789012345678")
      assert.strictEqual(yield* repo.reservedId("reserved@example.com"), "123456789012345678")
      const [reservation] = yield* repo.reservations
      assert.strictEqual(reservation?.snowflake, "123456789012345678")
      assert.isString(reservation?.updated_at)
    }).pipe(Effect.provide(Layer.mergeAll(BansRepo.layer, IpBanList.layerLocal).pipe(Layer.provideMerge(migrated)))),
  { timeout: 120_000 })
})
