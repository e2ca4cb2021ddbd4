import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ok, openDm, user } from "../../dms/Fixtures.ts"
import { guildWithChannel, idsOf, sent } from "../../messages/Fixtures.ts"
import { field, TestApi } from "../../support/Api.ts"
import { addMember } from "../../support/Cast.ts"
import { queryAt } from "../../support/Postgres.ts"

const GUILDS = 5
const PER_GUILD = 60

/** A POST of an admin route with the test's `*` key. */
const post = (path: string, body: unknown) =>
  Effect.flatMap(TestApi, (api) => api.request("POST", path, { token: `Admin ${api.adminKey}`, body }))

const countOf = (authorId: string) =>
  Effect.flatMap(TestApi, (api) =>
    Effect.map(queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE author_id = $1", [authorId]), (rows) =>
      Number(rows[0]?.n ?? -1)))

interface Progress {
  readonly status: string
  readonly requested: number
  readonly total: number
  readonly processed: number
  readonly skipped: number
}

const progressOf = (body: unknown): Progress => {
  const record = typeof body === "object" && body !== null ? body : {}
  const number = (key: string) => {
    const value: unknown = Reflect.get(record, key)
    return typeof value === "number" ? value : -1
  }
  return { status: field(body, "status"), requested: number("requested"), total: number("total"), processed: number("processed"), skipped: number("skipped") }
}

const statusOf = (jobId: string) => Effect.map(post("/admin/messages/shred-status", { job_id: jobId }), (reply) => progressOf(ok(reply)))

// Batches of 10 with a rest of 50 ms: a few hundred messages take long enough to watch, and to write meanwhile.
layer(
  TestApi.layerWith({ ADMIN_MESSAGE_JOB_SWEEP_SECONDS: "1", ADMIN_MESSAGE_JOB_BATCH: "10", ADMIN_MESSAGE_JOB_PAUSE_MS: "50" }),
  { timeout: 240_000, excludeTestServices: true }
)("admin: delete all of a user's messages", (it) => {
  it.effect("across 5 guilds and a DM, as a job: progress shows while it runs, the guilds take other writes meanwhile, a held message stays", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const target = yield* user
      const guilds = yield* Effect.forEach(Array.from({ length: GUILDS }, (_, i) => i), () => guildWithChannel)
      yield* Effect.forEach(guilds, (g) => addMember(g.guildId, target.userId))
      const theirs = yield* Effect.forEach(guilds, (g) =>
        Effect.forEach(Array.from({ length: PER_GUILD }, (_, i) => i), (i) => sent(target.token, g.channelId, `spam ${i}`)), { concurrency: GUILDS })
      const bystanders = yield* Effect.forEach(guilds, (g) => sent(g.owner.token, g.channelId, "before"))
      const friend = yield* user
      const dm = yield* openDm(target, friend)
      ok(yield* api.request("POST", `/channels/${dm}/messages`, { token: target.token, body: { content: "dm spam" } }))
      const held = theirs[0]?.[7] ?? ""
      yield* queryAt(api.databaseUrl, "INSERT INTO legal_hold_messages (message_id, report_id) VALUES ($1, 7)", [held])
      const all = GUILDS * PER_GUILD + 1

      // A dry run (the default) only counts.
      const dry = ok(yield* post("/admin/messages/delete-all", { user_id: target.userId }))
      assert.deepStrictEqual(dry, { success: true, dry_run: true, channel_count: GUILDS + 1, message_count: all })
      assert.strictEqual(yield* countOf(target.userId), all)

      const started = ok(yield* post("/admin/messages/delete-all", { user_id: target.userId, dry_run: false }))
      expect(started).toMatchObject({ success: true, dry_run: false, channel_count: GUILDS + 1, message_count: all })
      const jobId = field(started, "job_id")

      // While it runs: each guild's owner keeps writing, and every write is answered; the status is polled.
      const seen: Array<Progress> = []
      const during: Array<{ readonly guild: number; readonly id: string; readonly jobAt: Progress }> = []
      const deadline = Date.now() + 60_000
      const done = (p: Progress | undefined) => p !== undefined && p.status !== "in_progress"
      while (!done(seen[seen.length - 1]) && Date.now() < deadline) {
        const ids = yield* Effect.forEach(guilds, (g, i) =>
          Effect.map(api.request("POST", `/channels/${g.channelId}/messages`, { token: g.owner.token, body: { content: "meanwhile" } }), (reply) => ({
            guild: i,
            id: field(ok(reply), "id")
          })), { concurrency: GUILDS })
        const now = yield* statusOf(jobId)
        seen.push(now)
        for (const sent of ids) during.push({ ...sent, jobAt: now })
        yield* Effect.sleep("100 millis")
      }
      const last = seen[seen.length - 1]
      expect(last).toEqual({ status: "completed", requested: all, total: all, processed: all - 1, skipped: 1 })
      // Progress was visible part way, and only went forward.
      const midway = seen.filter((p) => p.status === "in_progress" && p.processed > 0 && p.processed < all - 1)
      assert.isAbove(midway.length, 0, JSON.stringify(seen))
      for (let i = 1; i < seen.length; i++) assert.isAtLeast(seen[i]?.processed ?? 0, seen[i - 1]?.processed ?? 0)
      // Writes were answered while the job was part way through.
      assert.isTrue(during.some((w) => w.jobAt.status === "in_progress" && w.jobAt.processed > 0), JSON.stringify(seen))

      // Only the held message of theirs is left; everything the owners wrote survived, in Postgres and in the actors' pages.
      assert.strictEqual(yield* countOf(target.userId), 1)
      for (const [i, g] of guilds.entries()) {
        const page = idsOf(yield* api.request("GET", `/channels/${g.channelId}/messages?limit=100`, { token: g.owner.token }))
        const expected = [...during.filter((w) => w.guild === i).map((w) => w.id), bystanders[i] ?? "", ...(i === 0 ? [held] : [])]
        assert.sameMembers([...page], expected)
      }
      const logs = ok(yield* post("/admin/audit-logs/search", { target_id: target.userId }))
      expect(JSON.stringify(logs)).toContain("delete_all_user_messages_dry_run")
      expect(JSON.stringify(logs)).toContain(jobId)
    }))

  it.effect("a job whose claimer died is taken again when its lease runs out", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const g = yield* guildWithChannel
      const target = yield* user
      yield* addMember(g.guildId, target.userId)
      // As if a process claimed the job and died before its first batch. A sweep of this process may take
      // the job in the moment between its creation and the claim below: then it is tried again.
      let jobId = ""
      for (let attempt = 0; attempt < 3 && jobId === ""; attempt++) {
        for (let i = 0; i < 3; i++) yield* sent(target.token, g.channelId, `m${i}`)
        const candidate = field(ok(yield* post("/admin/messages/delete-all", { user_id: target.userId, dry_run: false })), "job_id")
        yield* queryAt(api.databaseUrl, "UPDATE admin_message_jobs SET claimed_until = now() + interval '4 seconds' WHERE id = $1", [candidate])
        yield* Effect.sleep("2 seconds")
        const untouched = (yield* statusOf(candidate)).status === "in_progress" && (yield* countOf(target.userId)) === 3
        if (untouched) jobId = candidate
        else yield* Effect.sleep("3 seconds")
      }
      assert.notStrictEqual(jobId, "", "the job was never left claimed by nobody")
      const deadline = Date.now() + 20_000
      while ((yield* statusOf(jobId)).status === "in_progress" && Date.now() < deadline) yield* Effect.sleep("250 millis")
      expect(yield* statusOf(jobId)).toMatchObject({ status: "completed", processed: 3, skipped: 0 })
      assert.strictEqual(yield* countOf(target.userId), 0)
      // Nothing to delete: no job.
      const none = ok(yield* post("/admin/messages/delete-all", { user_id: target.userId, dry_run: false }))
      assert.deepStrictEqual(none, { success: true, dry_run: false, channel_count: 0, message_count: 0 })
    }))
})
