import { assert, describe, it } from "@effect/vitest"
import { bool, int, intOrNull, RowShapeError, text, textOrNull, texts, timestamp, timestampOrNull } from "../../../shards/actors/RowFields.ts"
import { oneCopyEach, readPartialUser } from "../../../shards/actors/PartialUsers.ts"

const refusal = (read: () => unknown): string => {
  try {
    read()
  } catch (error) {
    assert.instanceOf(error, RowShapeError)
    return error instanceof RowShapeError ? error.message : ""
  }
  return assert.fail("the value was accepted")
}

describe("RowFields", () => {
  it("reads each column as its type, null only where allowed", () => {
    const row = {
      name: "a",
      none: null,
      n: 3,
      flag: false,
      ids: ["1", "2"],
      empty: [],
      at: new Date(Date.UTC(2026, 10, 27, 12)),
      atText: "2026-11-27 12:00:00+00"
    }
    assert.strictEqual(text(row, "name"), "a")
    assert.isNull(textOrNull(row, "none"))
    assert.strictEqual(int(row, "n"), 3)
    assert.isNull(intOrNull(row, "none"))
    assert.isFalse(bool(row, "flag"))
    assert.deepStrictEqual(texts(row, "ids"), ["1", "2"])
    assert.strictEqual(timestamp(row, "at"), "2026-11-27T12:00:00.000Z")
    assert.strictEqual(timestamp(row, "atText"), "2026-11-27T12:00:00.000Z")
    assert.isNull(timestampOrNull(row, "none"))
  })

  it("refuses what the column cannot hold, naming the column", () => {
    const row = { name: 7, none: null, n: 1.5, flag: "t", ids: ["1", 2], at: 12 }
    assert.include(refusal(() => text(row, "name")), "column name: expected text, got number")
    assert.include(refusal(() => text(row, "none")), "got null")
    assert.include(refusal(() => text(row, "missing")), "got undefined")
    assert.include(refusal(() => int(row, "n")), "column n")
    assert.include(refusal(() => bool(row, "flag")), "column flag")
    assert.include(refusal(() => texts(row, "ids")), "column ids")
    assert.include(refusal(() => timestamp(row, "at")), "column at")
  })

  it("every empty text[] is the same frozen array: a big guild's members mostly have no roles", () => {
    const a = texts({ roles: [] }, "roles")
    const b = texts({ roles: [] }, "roles")
    assert.strictEqual(a, b)
    assert.isTrue(Object.isFrozen(a))
  })
})

describe("readPartialUser", () => {
  const row = (id: string) => ({
    id,
    username: `user${id}`,
    discriminator: "0001",
    global_name: null,
    avatar: null,
    bot: false,
    flags: "0",
    mention_flags: 0,
    system: false
  })

  it("reads a partial user, one copy of each repeated string", () => {
    const same = oneCopyEach()
    const first = readPartialUser(row("1"), same)
    // Another string of the same text, as the driver makes one per row.
    const second = readPartialUser({ ...row("2"), discriminator: ["0", "0", "0", "1"].join("") }, same)
    assert.strictEqual(first.id, "1")
    assert.strictEqual(first.username, "user1")
    assert.strictEqual(first.discriminator, second.discriminator)
    assert.strictEqual(same("0001"), first.discriminator)
  })

  it("refuses a row missing a column of the partial user", () => {
    const { username: _, ...withoutName } = row("3")
    assert.include(refusal(() => readPartialUser(withoutName, oneCopyEach())), "column username")
  })
})
