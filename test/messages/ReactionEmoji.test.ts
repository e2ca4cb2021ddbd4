import { assert, describe, it } from "@effect/vitest"
import { parseEmoji } from "../../src/model/ReactionEmoji.ts"

describe("reaction emoji", () => {
  it("one unicode emoji, with its modifiers and joins, keycaps and flags", () => {
    for (const emoji of ["👍", "👍🏽", "👨‍👩‍👧", "❤️", "1️⃣", "🇫🇷", "🏳️‍🌈"]) {
      assert.deepStrictEqual(parseEmoji(emoji), { id: null, name: emoji }, emoji)
    }
  })

  it("a custom emoji as name:id, a:name:id or <:name:id>", () => {
    for (const text of ["party:123", "a:party:123", "<:party:123>", "<a:party:123>"]) {
      assert.deepStrictEqual(parseEmoji(text), { id: "123", name: "party" }, text)
    }
  })

  it("refuses text, two emojis, bare digits and ids out of range", () => {
    for (const text of ["", "a", "abc", "1", "👍👍", "👍a", "party:", ":123", "party:99999999999999999999", "\ud83d"]) {
      assert.strictEqual(parseEmoji(text), undefined, text)
    }
  })
})
