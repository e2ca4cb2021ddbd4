import { assert, describe, it } from "@effect/vitest"
import { windowPage } from "../../shards/guild/messages/MessagePages.ts"
import {
  appended,
  type ChannelMessages,
  knownAbsent,
  MessageWindow,
  NO_MESSAGES,
  WINDOW_SIZE,
  type WindowEntry
} from "../../shards/guild/messages/MessageWindow.ts"

const entry = (id: number): WindowEntry => ({ id: BigInt(id), authorId: "1", nonce: null, sentAt: id, json: `{"id":"${id}"}` })
const ids = (entries: ReadonlyArray<WindowEntry> | undefined) => entries?.map((e) => Number(e.id))

/** A channel that was sent messages 1..n, one after another. */
const channelOf = (n: number): ChannelMessages => {
  let channel = NO_MESSAGES
  for (let id = 1; id <= n; id++) channel = appended(channel, entry(id))
  return channel
}

describe("the message window", () => {
  it("keeps the newest WINDOW_SIZE messages, and knows from where it covers the channel", () => {
    const small = channelOf(10)
    assert.strictEqual(small.window.size, 10)
    assert.strictEqual(small.coveredFrom, 0n)
    assert.strictEqual(small.lastId, 10n)
    const big = channelOf(WINDOW_SIZE + 25)
    assert.strictEqual(big.window.size, WINDOW_SIZE)
    assert.strictEqual(big.window.at(0)?.id, 26n)
    assert.strictEqual(big.coveredFrom, 26n)
    assert.isTrue(knownAbsent(big, 1000n))
    assert.isFalse(knownAbsent(big, 3n))
    assert.isFalse(knownAbsent(big, 30n))
  })

  it("versions share nothing they can see: an old version is unchanged by later appends, and appending to it again copies", () => {
    const before = channelOf(5)
    const a = appended(before, entry(6))
    const b = appended(before, entry(7))
    assert.deepStrictEqual(ids(before.window.slice(0, 10)), [1, 2, 3, 4, 5])
    assert.deepStrictEqual(ids(a.window.slice(0, 10)), [1, 2, 3, 4, 5, 6])
    assert.deepStrictEqual(ids(b.window.slice(0, 10)), [1, 2, 3, 4, 5, 7])
    // Many appends past the compaction point keep every version right.
    const long = channelOf(3 * WINDOW_SIZE + 7)
    assert.deepStrictEqual(ids(long.window.slice(0, 2)), [2 * WINDOW_SIZE + 8, 2 * WINDOW_SIZE + 9])
    assert.strictEqual(long.window.at(WINDOW_SIZE - 1)?.id, BigInt(3 * WINDOW_SIZE + 7))
  })

  it("replaces and removes entries by id", () => {
    const channel = channelOf(4)
    const replaced = channel.window.replaced({ ...entry(2), json: "edited" })
    assert.strictEqual(replaced.find(2n)?.json, "edited")
    assert.strictEqual(channel.window.find(2n)?.json, `{"id":"2"}`)
    assert.deepStrictEqual(ids(channel.window.without(new Set([1n, 3n])).slice(0, 9)), [2, 4])
    assert.strictEqual(channel.window.without(new Set([9n])), channel.window)
    assert.strictEqual(MessageWindow.empty.find(1n), undefined)
  })

  it("answers pages it covers, newest first, and leaves the others to Postgres", () => {
    const small = channelOf(10)
    assert.deepStrictEqual(ids(windowPage(small, { limit: 3 })), [10, 9, 8])
    assert.deepStrictEqual(ids(windowPage(small, { limit: 3, before: "5" })), [4, 3, 2])
    assert.deepStrictEqual(ids(windowPage(small, { limit: 50, before: "3" })), [2, 1])
    assert.deepStrictEqual(ids(windowPage(small, { limit: 3, after: "5" })), [8, 7, 6])
    assert.deepStrictEqual(ids(windowPage(small, { limit: 4, around: "5" })), [7, 6, 5, 4])
    assert.deepStrictEqual(ids(windowPage(small, { limit: 3, around: "5" })), [6, 5, 4])

    const big = channelOf(WINDOW_SIZE + 50)
    assert.strictEqual(windowPage(big, { limit: 50 })?.length, 50)
    assert.strictEqual(windowPage(big, { limit: 50, before: "101" })?.length, 50)
    assert.isUndefined(windowPage(big, { limit: 50, before: "100" }))
    assert.isUndefined(windowPage(big, { limit: 5, after: "10" }))
    assert.deepStrictEqual(ids(windowPage(big, { limit: 2, after: "50" })), [52, 51])
    assert.isUndefined(windowPage(big, { limit: 10, around: "52" }))
    assert.strictEqual(windowPage(big, { limit: 10, around: "100" })?.length, 10)
  })
})
