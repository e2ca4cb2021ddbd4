import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { WINDOW_SIZE } from "../../shards/guild/messages/MessageWindow.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { reload } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, guildWithChannel, idsOf, memberWith, send, sent } from "./Fixtures.ts"

const TOTAL = WINDOW_SIZE + 30

/** `ids` (oldest first) from index `from` up to `to`, newest first: what a page answers. */
const newestFirst = (ids: ReadonlyArray<string>, from: number, to: number) => ids.slice(Math.max(0, from), to).reverse()

layer(TestApi.layer, { timeout: 240_000, excludeTestServices: true })("message paging and ordering", (it) => {
  it.effect("pages are the same from the actor's window and from Postgres, before and after a reload", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT)
      const ids: Array<string> = []
      for (let i = 0; i < TOTAL; i++) {
        const body = i === 2
          ? { content: `re <@${owner.userId}>`, message_reference: { message_id: ids[0] } }
          : { content: `m${i}` }
        const reply = yield* send(i % 2 === 0 ? owner.token : member.token, channelId, body)
        assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
        ids.push(field(reply.body, "id"))
      }
      const at = (i: number) => ids[i] ?? ""
      const page = (query: string) => api.request("GET", `/channels/${channelId}/messages${query}`, { token: member.token })
      // The window holds the newest WINDOW_SIZE: ids[30..129]. Each case names where its answer comes from.
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
        ["", newestFirst(ids, TOTAL - 50, TOTAL)], // window
        ["?limit=100", newestFirst(ids, TOTAL - 100, TOTAL)], // window
        [`?limit=100&before=${at(TOTAL - 1)}`, newestFirst(ids, TOTAL - 101, TOTAL - 1)], // Postgres
        [`?before=${at(100)}`, newestFirst(ids, 50, 100)], // window
        [`?before=${at(60)}`, newestFirst(ids, 10, 60)], // Postgres
        [`?limit=10&after=${at(5)}`, newestFirst(ids, 6, 16)], // Postgres
        [`?after=${at(120)}`, newestFirst(ids, 121, TOTAL)], // window
        [`?limit=5&around=${at(10)}`, newestFirst(ids, 8, 13)], // Postgres
        [`?limit=6&around=${at(100)}`, newestFirst(ids, 98, 104)], // window
        [`?limit=1&around=${at(0)}`, [at(0)]]
      ]
      const check = Effect.forEach(cases, ([query, expected]) =>
        Effect.map(page(query), (reply) => assert.deepStrictEqual(idsOf(reply), expected, query)))
      yield* check
      const fromWindow = (yield* page("?limit=100")).body
      const old = yield* api.request("GET", `/channels/${channelId}/messages/${at(2)}`, { token: member.token })
      expect(old.body).toMatchObject({ type: 19, referenced_message: { id: at(0), content: "m0" }, mentions: [{ id: owner.userId }] })

      yield* reload(guildId)
      yield* check
      assert.deepStrictEqual((yield* page("?limit=100")).body, fromWindow)
      const olderPage = (yield* page(`?limit=3&before=${at(4)}`)).body as ReadonlyArray<unknown>
      assert.deepStrictEqual(olderPage[1], old.body)

      // Writes about messages older than the window: the actor decides from the copy Postgres gave.
      const reply = yield* send(member.token, channelId, { content: "late reply", message_reference: { message_id: at(1) } })
      expect(reply.body).toMatchObject({ type: 19, referenced_message: { id: at(1), content: "m1" }, mentions: [{ id: member.userId }] })
      const edited = yield* api.request("PATCH", `/channels/${channelId}/messages/${at(1)}`, { token: member.token, body: { content: "m1 again" } })
      expect(edited.body).toMatchObject({ id: at(1), content: "m1 again" })
      expect((yield* api.request("GET", `/channels/${channelId}/messages/${at(1)}`, { token: owner.token })).body).toMatchObject({ content: "m1 again" })
      expectError(yield* api.request("PATCH", `/channels/${channelId}/messages/${at(0)}`, { token: member.token, body: { content: "x" } }), 403, "CANNOT_EDIT_OTHER_USER_MESSAGE")
      const removed = yield* api.request("DELETE", `/channels/${channelId}/messages/${at(0)}`, { token: owner.token })
      assert.strictEqual(removed.status, 204, JSON.stringify(removed.body))
      expectError(yield* api.request("GET", `/channels/${channelId}/messages/${at(0)}`, { token: owner.token }), 404, "UNKNOWN_MESSAGE")
      const replyToGone = (yield* api.request("GET", `/channels/${channelId}/messages/${at(2)}`, { token: owner.token })).body
      expect(replyToGone).toMatchObject({ referenced_message: null })
    }))

  it.effect("concurrent sends: every one is stored, ids ascend in commit order", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { guildId, channelId } = yield* guildWithChannel
      const senders = yield* Effect.forEach([0, 1, 2, 3], () => memberWith(guildId, CHAT))
      const ids = yield* Effect.forEach(
        Array.from({ length: 40 }, (_, i) => i),
        (i) => sent(senders[i % senders.length]?.token ?? "", channelId, `burst ${i}`),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(ids).size, 40)
      const listed = idsOf(yield* api.request("GET", `/channels/${channelId}/messages?limit=100`, { token: senders[0]?.token ?? "" }))
      assert.deepStrictEqual([...listed].sort(), [...ids].sort())
      for (let i = 1; i < listed.length; i++) assert.isTrue(BigInt(listed[i - 1] ?? "0") > BigInt(listed[i] ?? "0"))
      // Batches commit one after another, each in its own transaction: by id, the committing
      // transaction ids never go back (a later batch never holds a smaller message id).
      const rows = yield* queryAt(api.databaseUrl, "SELECT xmin::text::bigint AS tx FROM messages WHERE channel_id = $1 ORDER BY id", [channelId])
      const transactions = rows.map((r) => BigInt(String(r.tx)))
      for (let i = 1; i < transactions.length; i++) assert.isTrue((transactions[i] ?? 0n) >= (transactions[i - 1] ?? 0n))
      yield* sent(senders[0]?.token ?? "", channelId, "after the burst")
    }))
})
