import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ok, user } from "../../dms/Fixtures.ts"
import { guildWithChannel, idAgo, sent } from "../../messages/Fixtures.ts"
import { setAcls } from "../../support/Acls.ts"
import { expectError, field, TestApi } from "../../support/Api.ts"
import { addMember } from "../../support/Cast.ts"
import { queryAt } from "../../support/Postgres.ts"

/** Rows of a busy channel, so the planner looks hostnames up in their index rather than reading the channel. */
const FILLER = 20_000

const admin = (key: string) => `Admin ${key}`

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

const post = (path: string, body: unknown, token?: string) =>
  Effect.flatMap(TestApi, (api) => api.request("POST", path, { token: token ?? admin(api.adminKey), body }))

/** The ids of the messages `token`'s user finds linking to `hostname`. */
const linkingTo = (token: string, hostname: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const body = ok(yield* api.request("POST", "/search/messages", { token, body: { link_hostname: [hostname] } }))
    const messages: unknown = isRecord(body) ? body.messages : undefined
    return Array.isArray(messages) ? messages.filter(isRecord).map((m) => String(m.id)) : []
  })

/**
 * Messages whose search data is stale the one way it can be: what computes it
 * (here the IMMUTABLE function behind messages_link_hostnames, schema/0026)
 * differed when they were written, as after a migration that fixes such a
 * function. Their index entries then hold no hostname, though their rows link
 * to one. Written on a connection of their own (a backend keeps the index's
 * expression it loaded first), a minute in the past so no id the API mints
 * meets theirs; their ids.
 */
const writtenWhileBroken = (at: { readonly channelId: string; readonly guildId: string; readonly authorId: string }, contents: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const [original] = yield* queryAt(api.databaseUrl, "SELECT pg_get_functiondef('message_link_hostnames'::regproc) AS def")
    yield* queryAt(
      api.databaseUrl,
      `CREATE OR REPLACE FUNCTION message_link_hostnames(content text, embeds jsonb) RETURNS text[]
         LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$ SELECT '{}'::text[] $fn$`
    )
    const ids = contents.map((_, i) => idAgo(60_000, BigInt(i + 1)))
    yield* queryAt(
      api.databaseUrl,
      `INSERT INTO messages (channel_id, id, guild_id, author_id, content, created_at)
       SELECT $1, m.id, $2, $3, m.content, now() FROM unnest($4::bigint[], $5::text[]) AS m (id, content)`,
      [at.channelId, at.guildId, at.authorId, ids, contents]
    )
    yield* queryAt(api.databaseUrl, String(original?.def))
    return ids
  })

interface Progress {
  readonly status: string
  readonly total: number | null
  readonly processed: number
  readonly percent: number
}

const progressOf = (body: unknown): Progress => {
  const record = isRecord(body) ? body : {}
  const total = record.total
  return {
    status: String(record.status),
    total: typeof total === "number" ? total : null,
    processed: typeof record.processed === "number" ? record.processed : -1,
    percent: typeof record.progress_percent === "number" ? record.progress_percent : -1
  }
}

/** Queues a refresh and polls its status until it is over: every status seen. */
const refreshed = (body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const started = ok(yield* post("/admin/search/refresh-index", body))
    const jobId = field(started, "job_id")
    expect(started).toEqual({ success: true, job_id: jobId })
    const seen: Array<Progress> = []
    const deadline = Date.now() + 60_000
    for (;;) {
      const status = ok(yield* post("/admin/search/refresh-status", { job_id: jobId }))
      expect(status).toMatchObject({ job_id: jobId, index_type: body.index_type, started_at: expect.any(String) })
      seen.push(progressOf(status))
      if (seen[seen.length - 1]?.status !== "in_progress" || Date.now() > deadline) return { jobId, seen, last: status }
      yield* Effect.sleep("50 millis")
    }
  })

layer(
  TestApi.layerWith({ SEARCH_REFRESH_SWEEP_SECONDS: "1", SEARCH_REFRESH_BATCH: "1000", SEARCH_REFRESH_PAUSE_MS: "100" }),
  { timeout: 240_000, excludeTestServices: true }
)("admin: search index refresh", (it) => {
  it.effect("stale search data of a guild, a user, everything: rebuilt by a job with progress, found again", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      yield* queryAt(
        api.databaseUrl,
        `INSERT INTO messages (channel_id, id, guild_id, author_id, content, created_at)
         SELECT $1, $2::bigint + i, $3, $4, 'see https://filler.example.net/' || i, now() FROM generate_series(1, $5) AS i`,
        [channelId, idAgo(86_400_000), guildId, owner.userId, FILLER]
      )
      yield* queryAt(api.databaseUrl, "ANALYZE messages")

      // A guild's messages.
      const news = yield* writtenWhileBroken({ channelId, guildId, authorId: owner.userId }, [1, 2, 3].map((i) => `read https://news.example.org/${i}`))
      assert.deepStrictEqual(yield* linkingTo(owner.token, "news.example.org"), [], "the stale entries hide them")
      const guild = yield* refreshed({ index_type: "guild", guild_id: guildId })
      const all = FILLER + news.length
      expect(guild.last).toMatchObject({ status: "completed", guild_id: guildId, total: all, processed: all, progress_percent: 100, completed_at: expect.any(String) })
      // Progress showed part way, and only went forward.
      assert.isAbove(guild.seen.filter((p) => p.status === "in_progress" && p.processed > 0 && p.processed < all).length, 0, JSON.stringify(guild.seen))
      for (let i = 1; i < guild.seen.length; i++) assert.isAtLeast(guild.seen[i]?.processed ?? 0, guild.seen[i - 1]?.processed ?? 0)
      assert.sameMembers([...(yield* linkingTo(owner.token, "news.example.org"))], news)
      // Nothing else changed: the contents are as sent.
      const [row] = yield* queryAt(api.databaseUrl, "SELECT content FROM messages WHERE channel_id = $1 AND id = $2", [channelId, news[0]])
      assert.strictEqual(row?.content, "read https://news.example.org/1")

      // A user's messages.
      const member = yield* user
      yield* addMember(guildId, member.userId)
      const theirs = yield* writtenWhileBroken({ channelId, guildId, authorId: member.userId }, [1, 2].map((i) => `at https://blog.example.org/${i}`))
      assert.deepStrictEqual(yield* linkingTo(owner.token, "blog.example.org"), [])
      const byUser = yield* refreshed({ index_type: "user", user_id: member.userId })
      expect(byUser.last).toMatchObject({ status: "completed", user_id: member.userId, total: 2, processed: 2 })
      assert.sameMembers([...(yield* linkingTo(owner.token, "blog.example.org"))], theirs)

      // Every index whole.
      // Sent through the API meanwhile: a message with fresh entries, found all along.
      const fresh = yield* sent(owner.token, channelId, "on https://wiki.example.org/fresh")
      const wiki = yield* writtenWhileBroken({ channelId, guildId, authorId: owner.userId }, [1, 2].map((i) => `on https://wiki.example.org/${i}`))
      assert.deepStrictEqual(yield* linkingTo(owner.token, "wiki.example.org"), [fresh])
      const everything = yield* refreshed({ index_type: "all" })
      expect(everything.last).toMatchObject({ status: "completed", total: 8, processed: 8, progress_percent: 100 })
      assert.sameMembers([...(yield* linkingTo(owner.token, "wiki.example.org"))], [fresh, ...wiki])
      assert.strictEqual((yield* linkingTo(owner.token, "filler.example.net")).length, 25)

      // Audited; an unknown job is said to be unknown.
      const logs = JSON.stringify(ok(yield* post("/admin/audit-logs/search", { target_id: guildId })))
      expect(logs).toContain("search.refresh_index")
      expect(logs).toContain(guild.jobId)
      assert.deepStrictEqual(ok(yield* post("/admin/search/refresh-status", { job_id: "12345" })), { status: "not_found" })
    }))

  it.effect("401 without credentials, 403 without the ACL, 400 on bad input, 404 for an unknown subject; search:refresh_index is enough", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const operator = yield* api.register()
      yield* setAcls(operator.userId, ["admin:authenticate", "user:lookup"])
      const key = field(ok(yield* post("/admin/api-keys", { name: "lookups", acls: ["user:lookup"] })), "key")
      const routes = [
        { path: "/admin/search/refresh-index", body: { index_type: "user", user_id: operator.userId } },
        { path: "/admin/search/refresh-status", body: { job_id: "1" } }
      ]
      for (const route of routes) {
        expectError(yield* api.request("POST", route.path, { body: route.body }), 401, "UNAUTHORIZED")
        expectError(yield* post(route.path, route.body, operator.token), 403, "MISSING_PERMISSIONS")
        expectError(yield* post(route.path, route.body, admin(key)), 403, "MISSING_PERMISSIONS")
      }
      for (
        const bad of [
          {},
          { index_type: "everything" },
          { index_type: "guild" },
          { index_type: "user" },
          { index_type: "guild", guild_id: "x" },
          { index_type: "user", user_id: 5 },
          { index_type: "all\u0000" }
        ]
      ) {
        expectError(yield* post("/admin/search/refresh-index", bad), 400, "INVALID_FORM_BODY")
      }
      expectError(yield* post("/admin/search/refresh-status", {}), 400, "INVALID_FORM_BODY")
      expectError(yield* post("/admin/search/refresh-status", { job_id: "abc" }), 400, "INVALID_FORM_BODY")
      expectError(yield* post("/admin/search/refresh-index", { index_type: "guild", guild_id: "12345" }), 404, "UNKNOWN_GUILD")
      expectError(yield* post("/admin/search/refresh-index", { index_type: "user", user_id: "12345" }), 404, "UNKNOWN_USER")

      yield* setAcls(operator.userId, ["admin:authenticate", "search:refresh_index"])
      const jobId = field(ok(yield* post("/admin/search/refresh-index", routes[0]?.body, operator.token)), "job_id")
      expect(ok(yield* post("/admin/search/refresh-status", { job_id: jobId }, operator.token))).toMatchObject({ job_id: jobId, index_type: "user" })
    }))
})
