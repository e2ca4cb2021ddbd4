import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../../support/Api.ts"
import { setAcls } from "../../support/Acls.ts"
import { DEFAULT_CONFIG } from "../../../src/model/Limits.ts"
import { payload, postMultipart } from "../../messages/Multipart.ts"

const asAdmin = (path: string, body?: unknown) =>
  Effect.flatMap(TestApi, (t) => t.request("POST", path, { token: `Admin ${t.adminKey}`, body }))

const configWith = (limits: Record<string, number>) => ({
  limit_config: { traitDefinitions: [], rules: [{ id: "default", limits }] }
})

/** A guild of a fresh user, and its first text channel. */
const guildWithChannel = Effect.gen(function*() {
  const t = yield* TestApi
  const owner = yield* t.register()
  const guild = yield* t.request("POST", "/guilds", { token: owner.token, body: { name: "Limits" } })
  const guildId = field(guild.body, "id")
  const channels = yield* t.request("GET", `/guilds/${guildId}/channels`, { token: owner.token })
  const text = (channels.body as ReadonlyArray<{ id: string; type: number }>).find((c) => c.type === 0)
  assert.isDefined(text)
  return { owner, guildId, channelId: text?.id ?? "" }
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("limit configuration", (it) => {
  it.effect("get and update: served to an operator, 400 on bad keys and values, 403 without the ACL, 401 anonymous, audited", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const got = yield* asAdmin("/admin/limit-config/get")
      assert.strictEqual(got.status, 200, JSON.stringify(got.body))
      expect(got.body).toMatchObject({
        self_hosted: true,
        limit_config: { rules: [{ id: "default", limits: { max_message_length: 2000, max_guild_roles: 250 } }, { id: "more_emoji" }, { id: "more_stickers" }] },
        metadata: { max_message_length: { key: "max_message_length", category: "messages", unit: "count", isToggle: false } },
        bounds: { max_message_length: { min: 0, max: 4000 } }
      })
      assert.include(got.body && (got.body as { limit_keys: Array<string> }).limit_keys, "max_guilds")

      for (const bad of [
        configWith({ max_message_lenght: 10 }),
        configWith({ max_message_length: -1 }),
        configWith({ max_message_length: 1.5 }),
        configWith({ max_message_length: 4001 }),
        { limit_config: { rules: [{ id: "a", limits: {} }, { id: "a", limits: {} }] } },
        { limit_config: { rules: [{ id: "", limits: {} }] } },
        { limit_config: "everything" },
        {}
      ]) {
        expectError(yield* asAdmin("/admin/limit-config/update", bad), 400, "INVALID_FORM_BODY")
      }

      const other = yield* t.register()
      yield* setAcls(other.userId, ["admin:authenticate", "instance:limit_config:view"])
      const viewed = yield* t.request("POST", "/admin/limit-config/get", { token: other.token })
      assert.strictEqual(viewed.status, 200)
      expectError(
        yield* t.request("POST", "/admin/limit-config/update", { token: other.token, body: configWith({ max_guild_roles: 5 }) }),
        403,
        "MISSING_PERMISSIONS"
      )
      yield* setAcls(other.userId, ["admin:authenticate"])
      expectError(yield* t.request("POST", "/admin/limit-config/get", { token: other.token }), 403, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* t.request("POST", "/admin/limit-config/get")).status, 401)
      assert.strictEqual((yield* t.request("POST", "/admin/limit-config/update", { body: configWith({}) })).status, 401)

      const updated = yield* asAdmin("/admin/limit-config/update", configWith({ max_guild_roles: 100 }))
      assert.strictEqual(updated.status, 200, JSON.stringify(updated.body))
      expect(updated.body).toMatchObject({ limit_config: { rules: [{ id: "default", limits: { max_guild_roles: 100 }, modifiedFields: ["max_guild_roles"] }] } })
      const again = yield* asAdmin("/admin/limit-config/get")
      expect(again.body).toMatchObject({ limit_config: { rules: [{ id: "default", limits: { max_guild_roles: 100 } }] } })
      const audited = yield* asAdmin("/admin/audit-logs/search", { target_id: "limit_config" })
      expect(audited.body).toMatchObject({ logs: [{ action: "update_limit_config", target_type: "limit_config", metadata: { rules: "1", rule_ids: "default" } }] })
      yield* asAdmin("/admin/limit-config/update", { limit_config: DEFAULT_CONFIG })
    }))

  it.effect("a lowered message length refuses a longer message with the usual error, and a raised one lets it through", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const { owner, channelId } = yield* guildWithChannel
      const send = (content: string) => t.request("POST", `/channels/${channelId}/messages`, { token: owner.token, body: { content } })
      assert.strictEqual((yield* send("x".repeat(40))).status, 200)

      assert.strictEqual((yield* asAdmin("/admin/limit-config/update", configWith({ max_message_length: 30 }))).status, 200)
      const refused = yield* send("x".repeat(31))
      expectError(refused, 400, "INVALID_FORM_BODY")
      expect(refused.body).toMatchObject({ errors: [{ path: "content", code: "CONTENT_EXCEEDS_MAX_LENGTH" }] })
      assert.strictEqual((yield* send("x".repeat(30))).status, 200)
      // Editing is held to it too.
      const posted = yield* send("short")
      const edit = yield* t.request("PATCH", `/channels/${channelId}/messages/${field(posted.body, "id")}`, {
        token: owner.token,
        body: { content: "y".repeat(31) }
      })
      expectError(edit, 400, "INVALID_FORM_BODY")
      // And scheduling one, and a webhook's.
      const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10)
      const schedule = (content: string) =>
        t.request("POST", `/channels/${channelId}/messages/schedule`, {
          token: owner.token,
          body: { content, scheduled_local_at: `${day}T09:30:00`, timezone: "UTC" }
        })
      expectError(yield* schedule("s".repeat(31)), 400, "INVALID_FORM_BODY")
      assert.strictEqual((yield* schedule("s".repeat(30))).status, 201)
      const hook = yield* t.request("POST", `/channels/${channelId}/webhooks`, { token: owner.token, body: { name: "hook" } })
      const hookPath = `/webhooks/${field(hook.body, "id")}/${field(hook.body, "token")}`
      expectError(yield* t.request("POST", `${hookPath}?wait=true`, { body: { content: "w".repeat(31) } }), 400, "INVALID_FORM_BODY")
      assert.strictEqual((yield* t.request("POST", `${hookPath}?wait=true`, { body: { content: "w".repeat(30) } })).status, 200)

      // Above the old default of 2000, up to the ceiling.
      assert.strictEqual((yield* asAdmin("/admin/limit-config/update", configWith({ max_message_length: 3000 }))).status, 200)
      assert.strictEqual((yield* send("z".repeat(2500))).status, 200)
      expectError(yield* send("z".repeat(3001)), 400, "INVALID_FORM_BODY")
      yield* asAdmin("/admin/limit-config/update", { limit_config: DEFAULT_CONFIG })
      expectError(yield* send("z".repeat(2001)), 400, "INVALID_FORM_BODY")
    }))

  it.effect("a message's files are held to the configured count and size", () =>
    Effect.gen(function*() {
      const { owner, channelId } = yield* guildWithChannel
      const file = (index: number, bytes: number) => ({ name: `files[${index}]`, filename: `f${index}.txt`, data: new Uint8Array(bytes), type: "text/plain" })
      const send = (count: number, bytes: number) =>
        postMultipart(owner.token, channelId, [
          payload({ attachments: Array.from({ length: count }, (_, id) => ({ id })) }),
          ...Array.from({ length: count }, (_, i) => file(i, bytes))
        ])
      assert.strictEqual((yield* send(3, 100)).status, 200)

      yield* asAdmin("/admin/limit-config/update", configWith({ max_attachments_per_message: 2, max_attachment_file_size: 1000 }))
      const tooMany = yield* send(3, 100)
      expectError(tooMany, 400, "INVALID_FORM_BODY")
      expect(tooMany.body).toMatchObject({ errors: [{ path: "files[2]", code: "FILE_INDEX_EXCEEDS_MAXIMUM" }] })
      assert.strictEqual((yield* send(2, 1000)).status, 200)
      expectError(yield* send(1, 1001), 413, "FILE_SIZE_TOO_LARGE")
      yield* asAdmin("/admin/limit-config/update", { limit_config: DEFAULT_CONFIG })
      assert.strictEqual((yield* send(3, 1001)).status, 200)
    }))

  it.effect("guilds per user: creating and joining past the configured number is refused, rejoining is not", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const user = yield* t.register()
      const other = yield* t.register()
      const create = (token: string, name: string) => t.request("POST", "/guilds", { token, body: { name } })
      // The user's actor hears of a membership just after the guild answers: wait for it to count.
      const inGuilds = (count: number) =>
        Effect.gen(function*() {
          for (let i = 0; i < 100; i++) {
            const listed = yield* t.request("GET", "/users/@me/guilds", { token: user.token })
            if ((listed.body as Array<unknown>).length === count) return
            yield* Effect.sleep("20 millis")
          }
          assert.fail(`the user is not in ${count} guilds`)
        })
      yield* asAdmin("/admin/limit-config/update", configWith({ max_guilds: 2 }))
      const first = field((yield* create(user.token, "one")).body, "id")
      yield* inGuilds(1)
      const channels = yield* t.request("GET", `/guilds/${first}/channels`, { token: user.token })
      const textId = (channels.body as ReadonlyArray<{ id: string; type: number }>).find((c) => c.type === 0)?.id ?? ""
      const ownInvite = field((yield* t.request("POST", `/channels/${textId}/invites`, { token: user.token, body: {} })).body, "code")
      assert.strictEqual((yield* create(user.token, "two")).status, 200)
      yield* inGuilds(2)
      expectError(yield* create(user.token, "three"), 400, "MAX_GUILDS")

      const elsewhere = field((yield* create(other.token, "elsewhere")).body, "id")
      const otherChannels = yield* t.request("GET", `/guilds/${elsewhere}/channels`, { token: other.token })
      const otherText = (otherChannels.body as ReadonlyArray<{ id: string; type: number }>).find((c) => c.type === 0)?.id ?? ""
      const invite = field((yield* t.request("POST", `/channels/${otherText}/invites`, { token: other.token, body: {} })).body, "code")
      expectError(yield* t.request("POST", `/invites/${invite}`, { token: user.token }), 400, "MAX_GUILDS")
      // A guild the user is already in does not count against joining it.
      assert.notStrictEqual((yield* t.request("POST", `/invites/${ownInvite}`, { token: user.token })).status, 400)

      yield* asAdmin("/admin/limit-config/update", { limit_config: DEFAULT_CONFIG })
      assert.strictEqual((yield* t.request("POST", `/invites/${invite}`, { token: user.token })).status, 200)
    }))

  it.effect("the guild actors' checks read the configured roles, channels and emoji limits, rules by guild feature included", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const { owner, guildId } = yield* guildWithChannel
      const roles = yield* t.request("GET", `/guilds/${guildId}/roles`, { token: owner.token })
      const channels = yield* t.request("GET", `/guilds/${guildId}/channels`, { token: owner.token })
      const roleCount = (roles.body as Array<unknown>).length
      const channelCount = (channels.body as Array<unknown>).length
      yield* asAdmin("/admin/limit-config/update", configWith({ max_guild_roles: roleCount + 1, max_guild_channels: channelCount + 1 }))

      const role = () => t.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { name: "r" } })
      assert.strictEqual((yield* role()).status, 200)
      expectError(yield* role(), 400, "MAX_GUILD_ROLES")
      const channel = () => t.request("POST", `/guilds/${guildId}/channels`, { token: owner.token, body: { name: "c", type: 0 } })
      assert.strictEqual((yield* channel()).status, 200)
      expectError(yield* channel(), 400, "MAX_GUILD_CHANNELS")

      // No emoji at all, except in guilds with a feature no guild here has.
      yield* asAdmin("/admin/limit-config/update", {
        limit_config: {
          rules: [
            { id: "default", limits: { max_guild_emojis: 0 } },
            { id: "partners", filters: { guildFeatures: ["PARTNERED"] }, limits: { max_guild_emojis: 5 } }
          ]
        }
      })
      const png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
      const emoji = yield* t.request("POST", `/guilds/${guildId}/emojis`, { token: owner.token, body: { name: "e1", image: png } })
      expectError(emoji, 400, "MAX_EMOJIS")
      yield* asAdmin("/admin/limit-config/update", { limit_config: DEFAULT_CONFIG })
      assert.strictEqual((yield* role()).status, 200)
      const allowed = yield* t.request("POST", `/guilds/${guildId}/emojis`, { token: owner.token, body: { name: "e2", image: png } })
      assert.strictEqual(allowed.status, 200, JSON.stringify(allowed.body))
    }))
})
