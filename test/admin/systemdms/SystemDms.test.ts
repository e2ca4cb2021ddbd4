import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ok, request, user, type User } from "../../dms/Fixtures.ts"
import { guildWithChannel, idAgo } from "../../messages/Fixtures.ts"
import { setAcls } from "../../support/Acls.ts"
import { expectError, field, type Reply, TestApi } from "../../support/Api.ts"
import { addMember } from "../../support/Cast.ts"
import { queryAt } from "../../support/Postgres.ts"

const admin = (key: string) => `Admin ${key}`

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** The objects of an array body, or of the array `key` of an object body. */
const listOf = (body: unknown, key?: string): ReadonlyArray<Record<string, unknown>> => {
  const value: unknown = key === undefined ? body : isRecord(body) ? body[key] : undefined
  assert.isTrue(Array.isArray(value), JSON.stringify(body))
  return Array.isArray(value) ? value.filter(isRecord) : []
}

/** An admin call with the test's `*` key unless another credential is given. */
const call = (method: string, path: string, body?: unknown, token?: string) =>
  Effect.flatMap(TestApi, (api) => api.request(method, path, { token: token ?? admin(api.adminKey), ...(body === undefined ? {} : { body }) }))

/** Users registered (as far as the server knows) at `when`. */
const registeredAt = (users: ReadonlyArray<User>, when: string) =>
  Effect.flatMap(TestApi, (api) =>
    queryAt(api.databaseUrl, "UPDATE users SET created_at = $2 WHERE id = ANY($1::bigint[])", [users.map((u) => u.userId), when]))

const jobOf = (jobId: string) =>
  Effect.map(call("GET", "/admin/system-dm-jobs"), (reply) => listOf(ok(reply), "jobs").find((j) => j.job_id === jobId))

/** The job once it is no longer waiting or running (or the deadline passed). */
const settled = (jobId: string) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 30_000
    for (;;) {
      const job = yield* jobOf(jobId)
      if ((job?.status === "completed" || job?.status === "failed") || Date.now() > deadline) return job
      yield* Effect.sleep("200 millis")
    }
  })

/** The messages of the user's DM channels, as they see them over HTTP, with the other recipients. */
const dmsOf = (u: User) =>
  Effect.gen(function*() {
    const channels = listOf(ok(yield* request("GET", "/users/@me/channels", u.token)))
    return yield* Effect.forEach(channels, (channel) =>
      Effect.map(request("GET", `/channels/${String(channel.id)}/messages`, u.token), (reply) => ({
        channelId: String(channel.id),
        recipients: listOf(channel, "recipients"),
        messages: listOf(ok(reply))
      })))
  })

const contentsOf = (dms: ReadonlyArray<{ readonly messages: ReadonlyArray<Record<string, unknown>> }>) =>
  dms.flatMap((d) => d.messages.map((m) => m.content))

const created = (reply: Reply) => {
  const body = ok(reply)
  return { body, jobId: field(body, "job_id") }
}

layer(TestApi.layerWith({ SYSTEM_DM_JOB_SWEEP_SECONDS: "1", SYSTEM_DM_JOB_BATCH: "2" }), { timeout: 180_000, excludeTestServices: true })(
  "admin: system DM jobs",
  (it) => {
    it.effect("created, listed, held until approved, then sent in batches as DMs from the system user to the users the filters pick", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const inRange = yield* Effect.forEach([1, 2, 3, 4, 5, 6], () => user)
        const tooEarly = yield* user
        yield* registeredAt(inRange, "2020-03-01T00:00:00Z")
        yield* registeredAt([tooEarly], "2019-06-01T00:00:00Z")
        // A member of an excluded guild is not messaged.
        const excluded = yield* guildWithChannel
        const member = inRange[5]
        if (member === undefined) return assert.fail("no member")
        yield* addMember(excluded.guildId, member.userId)
        const targets = inRange.slice(0, 5)

        const { body, jobId } = created(yield* call("POST", "/admin/system-dm-jobs", {
          content: "The instance moves to new servers on Sunday.",
          registration_start: "2020-01-01T00:00:00Z",
          registration_end: "2020-12-31T23:59:59Z",
          excluded_guild_ids: [excluded.guildId]
        }))
        expect(body).toEqual({
          job_id: jobId,
          content: "The instance moves to new servers on Sunday.",
          created_at: expect.any(String),
          approved_at: null,
          excluded_guild_ids: [excluded.guildId],
          target_count: 5,
          sent_count: 0,
          failed_count: 0,
          last_error: null,
          registration_start: "2020-01-01T00:00:00.000Z",
          registration_end: "2020-12-31T23:59:59.000Z",
          status: "pending"
        })
        expect(yield* jobOf(jobId)).toEqual(body)

        // Nothing is sent before an operator approves it.
        yield* Effect.sleep("2500 millis")
        expect(yield* jobOf(jobId)).toMatchObject({ status: "pending", sent_count: 0 })
        assert.deepStrictEqual(contentsOf(yield* dmsOf(targets[0] ?? member)), [])

        const approved = ok(yield* call("POST", `/admin/system-dm-jobs/${jobId}/approve`))
        expect(approved).toMatchObject({ job_id: jobId, status: "approved", approved_at: expect.any(String) })
        const done = yield* settled(jobId)
        expect(done).toMatchObject({ status: "completed", target_count: 5, sent_count: 5, failed_count: 0, last_error: null })

        // Each target has one DM, from the system user, holding the content; the others have none.
        for (const target of targets) {
          const dms = yield* dmsOf(target)
          assert.strictEqual(dms.length, 1, JSON.stringify(dms))
          const [dm] = dms
          expect(dm?.recipients).toEqual([expect.objectContaining({ username: "system", system: true })])
          assert.strictEqual(dm?.messages.length, 1)
          expect(dm?.messages[0]).toMatchObject({ content: "The instance moves to new servers on Sunday.", author: { system: true } })
        }
        for (const other of [member, tooEarly]) assert.deepStrictEqual(yield* dmsOf(other), [])

        // Approved once only; unknown jobs are 404.
        expectError(yield* call("POST", `/admin/system-dm-jobs/${jobId}/approve`), 400, "SYSTEM_DM_JOB_NOT_PENDING")
        expectError(yield* call("POST", "/admin/system-dm-jobs/12345/approve"), 404, "UNKNOWN_SYSTEM_DM_JOB")

        // Both steps are in the audit log.
        const logs = JSON.stringify(ok(yield* call("POST", "/admin/audit-logs/search", { target_id: jobId })))
        expect(logs).toContain("system_dm_job.create")
        expect(logs).toContain("system_dm_job.approve")
        assert.isString(api.adminKey)
      }))

    it.effect("a job whose sender died part way resumes when its lease runs out, and nobody is messaged twice", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const first = yield* Effect.forEach([1, 2], () => user)
        yield* registeredAt(first, "2021-05-05T00:00:00Z")
        const { jobId } = created(yield* call("POST", "/admin/system-dm-jobs", {
          content: "Maintenance tonight.",
          registration_start: "2021-05-01T00:00:00Z",
          registration_end: "2021-05-31T00:00:00Z"
        }))
        ok(yield* call("POST", `/admin/system-dm-jobs/${jobId}/approve`))
        expect(yield* settled(jobId)).toMatchObject({ status: "completed", sent_count: 2 })

        // The state a process leaves when it dies mid-batch, with its lease still running:
        //  - `sentNotRecorded` got their message (committed by the DM actor under its operation id),
        //    but the process died before it removed their row and counted it;
        //  - `prepared` had an operation id committed, but no send went out;
        //  - `waiting` was listed but not reached;
        //  - a user listed, then deleted before their turn.
        const [sentNotRecorded] = first
        if (sentNotRecorded === undefined) return assert.fail("no user")
        const prepared = yield* user
        const waiting = yield* user
        const [operation] = yield* queryAt(
          api.databaseUrl,
          `SELECT o.operation_id FROM actor_operations o JOIN dm_recipients r ON o.entity_id = r.channel_id::text
           WHERE r.user_id = $1 ORDER BY o.created_at DESC LIMIT 1`,
          [sentNotRecorded.userId]
        )
        const sentOperation = String(operation?.operation_id)
        yield* queryAt(
          api.databaseUrl,
          "INSERT INTO system_dm_job_targets (job_id, user_id, operation_id) VALUES ($1, $2, $3), ($1, $4, $5), ($1, $6, NULL), ($1, $7, NULL)",
          [jobId, sentNotRecorded.userId, sentOperation, prepared.userId, idAgo(0), waiting.userId, idAgo(120_000)]
        )
        yield* queryAt(
          api.databaseUrl,
          `UPDATE system_dm_jobs SET status = 'running', completed_at = NULL, target_count = 5, sent_count = 1,
             claimed_until = now() + interval '3 seconds' WHERE id = $1`,
          [jobId]
        )

        // While the dead process's lease runs, nobody takes the job.
        yield* Effect.sleep("1500 millis")
        expect(yield* jobOf(jobId)).toMatchObject({ status: "running", sent_count: 1 })
        const done = yield* settled(jobId)
        expect(done).toMatchObject({ status: "completed", target_count: 5, sent_count: 4, failed_count: 1 })
        expect(String(done?.last_error)).toMatch(/^DM_CHANNEL_UNAVAILABLE: /)

        // One message each: the resent one was answered from the actor's record of its operation.
        for (const u of [...first, prepared, waiting]) {
          assert.deepStrictEqual(contentsOf(yield* dmsOf(u)), ["Maintenance tonight."], u.userId)
        }
      }))

    it.effect("a refused send (the user blocked the system user) counts as failed with its error", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        // A job of nobody makes the system user when no job has yet.
        const nobody = created(yield* call("POST", "/admin/system-dm-jobs", { content: "-", registration_end: "1990-01-01T00:00:00Z" }))
        ok(yield* call("POST", `/admin/system-dm-jobs/${nobody.jobId}/approve`))
        expect(yield* settled(nobody.jobId)).toMatchObject({ status: "completed", target_count: 0, sent_count: 0 })
        const [systemUser] = yield* queryAt(api.databaseUrl, "SELECT id::text AS id FROM users WHERE system ORDER BY id LIMIT 1")
        const systemId = String(systemUser?.id)
        const blocker = yield* user
        const reader = yield* user
        yield* registeredAt([blocker, reader], "2022-02-02T00:00:00Z")
        ok(yield* request("PUT", `/users/@me/relationships/${systemId}`, blocker.token, { type: 2 }))
        const { jobId } = created(yield* call("POST", "/admin/system-dm-jobs", {
          content: "Hello",
          registration_start: "2022-02-01T00:00:00Z",
          registration_end: "2022-02-03T00:00:00Z"
        }))
        ok(yield* call("POST", `/admin/system-dm-jobs/${jobId}/approve`))
        const done = yield* settled(jobId)
        expect(done).toMatchObject({ status: "completed", target_count: 2, sent_count: 1, failed_count: 1 })
        expect(String(done?.last_error)).toMatch(/^[A-Z_]+: /)
        assert.deepStrictEqual(contentsOf(yield* dmsOf(reader)), ["Hello"])
      }))

    it.effect("401 without credentials, 403 without the ACL, 400 on bad input; system_dm:send is enough", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const operator = yield* api.register()
        yield* setAcls(operator.userId, ["admin:authenticate", "user:lookup"])
        const key = field(ok(yield* call("POST", "/admin/api-keys", { name: "lookups", acls: ["user:lookup"] })), "key")
        const body = { content: "hi", registration_start: "2030-01-01T00:00:00Z" }
        const routes = [
          { method: "POST", path: "/admin/system-dm-jobs", body },
          { method: "GET", path: "/admin/system-dm-jobs", body: undefined },
          { method: "POST", path: "/admin/system-dm-jobs/1/approve", body: undefined }
        ]
        for (const route of routes) {
          expectError(yield* api.request(route.method, route.path, route.body === undefined ? {} : { body: route.body }), 401, "UNAUTHORIZED")
          expectError(yield* call(route.method, route.path, route.body, operator.token), 403, "MISSING_PERMISSIONS")
          expectError(yield* call(route.method, route.path, route.body, admin(key)), 403, "MISSING_PERMISSIONS")
        }
        for (
          const bad of [
            {},
            { content: "" },
            { content: "x".repeat(2001) },
            { content: "nul \u0000 byte" },
            { content: 42 },
            { content: "hi", registration_start: "last tuesday" },
            { content: "hi", registration_end: "2020-13-45T00:00:00Z" },
            { content: "hi", excluded_guild_ids: ["not a snowflake"] },
            { content: "hi", excluded_guild_ids: "1" }
          ]
        ) {
          expectError(yield* call("POST", "/admin/system-dm-jobs", bad), 400, "INVALID_FORM_BODY")
        }
        expectError(
          yield* call("POST", "/admin/system-dm-jobs", { content: "hi", registration_start: "2021-01-02T00:00:00Z", registration_end: "2021-01-01T00:00:00Z" }),
          400,
          "INVALID_FORM_BODY"
        )
        assert.strictEqual((yield* call("POST", "/admin/system-dm-jobs/abc/approve")).status, 400)

        yield* setAcls(operator.userId, ["admin:authenticate", "system_dm:send"])
        const { jobId } = created(yield* call("POST", "/admin/system-dm-jobs", body, operator.token))
        assert.isDefined(listOf(ok(yield* call("GET", "/admin/system-dm-jobs", undefined, operator.token)), "jobs").find((j) => j.job_id === jobId))
        expect(ok(yield* call("POST", `/admin/system-dm-jobs/${jobId}/approve`, undefined, operator.token))).toMatchObject({ status: "approved" })
      }))
  }
)
