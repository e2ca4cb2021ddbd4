import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { clusterEnvironment, clusterJson, clusterRegister, shardAndTwoApis } from "../support/Cluster.ts"
import { queryAt } from "../support/Postgres.ts"

/** Twenty changes of one user's settings, each to its own key and away from its default. */
const CHANGES: ReadonlyArray<readonly [key: string, value: unknown]> = [
  ["status", "dnd"],
  ["theme", "dark"],
  ["locale", "fr"],
  ["restricted_guilds", ["100"]],
  ["bot_restricted_guilds", ["101"]],
  ["default_guilds_restricted", true],
  ["bot_default_guilds_restricted", true],
  ["inline_attachment_media", false],
  ["inline_embed_media", false],
  ["gif_auto_play", false],
  ["render_embeds", false],
  ["render_reactions", false],
  ["animate_emoji", false],
  ["animate_stickers", 2],
  ["render_spoilers", 0],
  ["message_display_compact", true],
  ["friend_source_flags", 1],
  ["afk_timeout", 120],
  ["developer_mode", true],
  ["trusted_domains", ["example.com"]]
]
/** Kept in the account's row rather than in user_settings. */
const ACCOUNT_KEYS = new Set(["theme", "locale"])

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
/** The changes `settings` shows made. */
const madeIn = (settings: unknown) => new Set(CHANGES.filter(([key, value]) => isRecord(settings) && same(settings[key], value)).map(([key]) => key))

it.live("concurrent settings writes through two API processes are serialised by the user's actor: none is lost", () =>
  Effect.gen(function*() {
    const { databaseUrl, env } = yield* clusterEnvironment()
    const { first, second } = yield* shardAndTwoApis(env)
    const bases = [first.base, second.base]
    const { token, userId } = yield* clusterRegister(first.base, "racer@example.com")

    const replies = yield* Effect.forEach(CHANGES, ([key, value], i) =>
      Effect.gen(function*() {
        const startedAt = performance.now()
        const reply = yield* clusterJson(`${bases[i % 2]}/users/@me/settings`, { method: "PATCH", token, body: { [key]: value } })
        return { key, via: i % 2, ...reply, startedAt, endedAt: performance.now() }
      }), { concurrency: "unbounded" })
    for (const reply of replies) assert.strictEqual(reply.status, 200, `${reply.key}: ${JSON.stringify(reply.body)}`)
    const overlapping = replies.some((a) => a.via === 0 && replies.some((b) => b.via === 1 && a.startedAt < b.endedAt && b.startedAt < a.endedAt))
    assert.isTrue(overlapping, "no request of one API process overlapped one of the other")

    // Each answer shows the settings right after its own write. One writer at a time means those
    // form a chain: every answer holds its own change, and each holds all that an earlier one did.
    const seen = replies.map((reply) => ({ key: reply.key, made: madeIn(reply.body) })).sort((a, b) => a.made.size - b.made.size)
    seen.forEach(({ key, made }, i) => {
      assert.isTrue(made.has(key), `the answer to ${key} lacks its own change`)
      assert.strictEqual(made.size, i + 1, `two answers show ${made.size} changes: two writes started from the same settings`)
      const before = seen[i - 1]
      if (before !== undefined) for (const earlier of before.made) assert.isTrue(made.has(earlier), `${key}'s answer lost ${earlier}`)
    })

    // Every change is there, through both processes and in Postgres.
    for (const base of bases) {
      const reply = yield* clusterJson(`${base}/users/@me/settings`, { token })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assert.strictEqual(madeIn(reply.body).size, CHANGES.length, `${base}: ${JSON.stringify(reply.body)}`)
    }
    const [stored] = yield* queryAt(databaseUrl, "SELECT data FROM user_settings WHERE user_id = $1", [userId])
    const [account] = yield* queryAt(databaseUrl, "SELECT theme, locale FROM users WHERE id = $1", [userId])
    const data = stored?.data
    for (const [key, value] of CHANGES) {
      const kept = ACCOUNT_KEYS.has(key) ? account?.[key] : isRecord(data) ? data[key] : undefined
      assert.isTrue(same(kept, value), `Postgres holds ${key} = ${JSON.stringify(kept)}`)
    }
  }), { timeout: 180_000 })
