import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { isAdult } from "../../src/model/SettingsValues.ts"
import { setAcls } from "../support/Acls.ts"
import { TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

const SETTINGS = "/users/@me/settings"
const yearsAgo = (years: number) => {
  const d = new Date()
  d.setFullYear(d.getFullYear() - years)
  return d.toISOString().slice(0, 10)
}

describe("age", () => {
  it("is of age from the 18th birthday on; an unknown birth date is not", () => {
    const now = new Date("2024-06-15T12:00:00Z")
    assert.isTrue(isAdult("2006-06-15", now))
    assert.isFalse(isAdult("2006-06-16", now))
    assert.isFalse(isAdult(null, now))
  })
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("user settings over HTTP", (it) => {
  const get = (token: string) => Effect.flatMap(TestApi, (api) => api.request("GET", SETTINGS, { token }))
  const patch = (token: string, body: unknown) => Effect.flatMap(TestApi, (api) => api.request("PATCH", SETTINGS, { token, body }))

  it.effect("a new user has the defaults, theme and locale as registered; minors start stricter", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const adult = yield* api.register({ theme: "light" })
      const reply = yield* get(adult.token)
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      expect(reply.body).toEqual({
        status: "online",
        status_resets_at: null,
        status_resets_to: null,
        theme: "light",
        locale: "en-US",
        restricted_guilds: [],
        bot_restricted_guilds: [],
        default_guilds_restricted: false,
        bot_default_guilds_restricted: false,
        inline_attachment_media: true,
        inline_embed_media: true,
        gif_auto_play: true,
        render_embeds: true,
        render_reactions: true,
        animate_emoji: true,
        animate_stickers: 0,
        render_spoilers: 1,
        message_display_compact: false,
        friend_source_flags: 7,
        incoming_call_flags: 8,
        group_dm_add_permission_flags: 8,
        guild_folders: [{ id: -1, name: null, color: null, flags: 0, icon: "folder", guild_ids: [] }],
        custom_status: null,
        afk_timeout: 600,
        time_format: 0,
        developer_mode: false,
        trusted_domains: [],
        default_hide_muted_channels: false,
        sensitive_content_friend_dm_filter: 0,
        sensitive_content_non_friend_dm_filter: 2,
        sensitive_content_guild_filter: 1,
        suppress_unprivileged_self_mentions: false,
        suppress_unprivileged_self_mentions_bypass_user_ids: [],
        staff_dm_access_user_ids: [],
        synced_preferences: "",
        profile_privacy: 0,
        default_share_voice_activity: true
      })
      const minor = yield* api.register({ date_of_birth: yearsAgo(15) })
      expect((yield* get(minor.token)).body).toMatchObject({ friend_source_flags: 3, sensitive_content_friend_dm_filter: 1 })
      assert.strictEqual((yield* api.request("GET", SETTINGS)).status, 401)
      assert.strictEqual((yield* api.request("PATCH", SETTINGS, { body: { theme: "dark" } })).status, 401)
    }))

  it.effect("PATCH changes only what it names, and the changes stay", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const first = yield* patch(token, {
        theme: "coal",
        locale: "fr",
        status: "dnd",
        gif_auto_play: false,
        restricted_guilds: ["5", "5", "6"],
        guild_folders: [{ id: 1, name: "Work", guild_ids: ["7", "8", "7"] }, { id: 2, color: null, icon: "star", flags: 1, guild_ids: [] }],
        trusted_domains: ["example.com"],
        afk_timeout: 120,
        synced_preferences: "CgQIARAB"
      })
      assert.strictEqual(first.status, 200, JSON.stringify(first.body))
      expect(first.body).toMatchObject({
        theme: "coal",
        locale: "fr",
        status: "dnd",
        gif_auto_play: false,
        restricted_guilds: ["5", "6"],
        guild_folders: [
          { id: 1, name: "Work", color: 0, flags: 0, icon: "folder", guild_ids: ["7", "8"] },
          { id: 2, name: null, color: null, flags: 1, icon: "star", guild_ids: [] }
        ],
        trusted_domains: ["example.com"],
        afk_timeout: 120,
        synced_preferences: "CgQIARAB",
        render_embeds: true
      })
      const second = yield* patch(token, { message_display_compact: true, flags: 1, synced_preferences: null })
      expect(second.body).toMatchObject({ theme: "coal", status: "dnd", message_display_compact: true, friend_source_flags: 1, synced_preferences: "" })
      expect((yield* get(token)).body).toEqual(second.body)
      const stored = yield* queryAt(api.databaseUrl, "SELECT theme, locale FROM users WHERE id = $1", [userId])
      expect(stored[0]).toEqual({ theme: "coal", locale: "fr" })
    }))

  it.effect("a custom status is checked and lapses when it expires; a status reset comes due", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const soon = new Date(Date.now() + 3_600_000)
      const set = yield* patch(token, {
        custom_status: { text: "Writing", emoji_name: "👩🏽‍💻", expires_at: soon.getTime() },
        status: "idle",
        status_resets_at: soon.toISOString(),
        status_resets_to: "online"
      })
      assert.strictEqual(set.status, 200, JSON.stringify(set.body))
      expect(set.body).toMatchObject({
        custom_status: { text: "Writing", emoji_name: "👩🏽‍💻", emoji_id: null, expires_at: soon.toISOString(), emoji_animated: false },
        status: "idle",
        status_resets_at: soon.toISOString()
      })
      const custom = yield* patch(token, { custom_status: { emoji_id: "123", emoji_name: "ignored" } })
      expect(custom.body).toMatchObject({ custom_status: { text: null, emoji_id: "123", emoji_name: null } })

      // Both moments pass: what is stored stays, the read undoes what is past its time.
      const moment = new Date(Date.now() + 3000)
      const lapsing = yield* patch(token, { custom_status: { text: "old", expires_at: moment.toISOString() }, status_resets_at: moment.toISOString() })
      expect(lapsing.body).toMatchObject({ status: "idle", status_resets_at: moment.toISOString(), custom_status: { text: "old" } })
      yield* Effect.sleep(Math.max(0, moment.getTime() - Date.now()) + 200)
      expect((yield* get(token)).body).toMatchObject({ status: "online", status_resets_at: null, status_resets_to: null, custom_status: null })
      const past = new Date(Date.now() - 1000).toISOString()

      const bad: ReadonlyArray<[unknown, string]> = [
        [{ custom_status: { emoji_name: "nope" } }, "NOT_A_VALID_UNICODE_EMOJI"],
        [{ custom_status: { text: "x", expires_at: past } }, "custom_status.expires_at"],
        [{ custom_status: { text: "x".repeat(129) } }, "STRING_LENGTH_INVALID"],
        [{ status_resets_at: "2024-13-45T99:00:00Z" }, "INVALID_ISO_TIMESTAMP"],
        [{ status_resets_at: "yesterday" }, "INVALID_ISO_TIMESTAMP"]
      ]
      for (const [payload, expected] of bad) {
        const reply = yield* patch(token, payload)
        assert.strictEqual(reply.status, 400, JSON.stringify(payload))
        assert.include(JSON.stringify(reply.body), expected)
      }
    }))

  it.effect("every field is validated: enums, ranges, flag bits and list sizes", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const ids = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1))
      const bad: ReadonlyArray<[Record<string, unknown>, string]> = [
        [{ theme: "neon" }, "theme"],
        [{ locale: "xx-XX" }, "locale"],
        [{ status: "offline" }, "status"],
        [{ animate_stickers: 3 }, "animate_stickers"],
        [{ sensitive_content_guild_filter: 2 }, "sensitive_content_guild_filter"],
        [{ afk_timeout: 59 }, "afk_timeout"],
        [{ afk_timeout: 601 }, "afk_timeout"],
        [{ friend_source_flags: 8 }, "friend_source_flags"],
        [{ incoming_call_flags: 64 }, "incoming_call_flags"],
        [{ profile_privacy: 3 }, "profile_privacy"],
        [{ restricted_guilds: ids(201) }, "restricted_guilds"],
        [{ restricted_guilds: ["not-a-snowflake"] }, "restricted_guilds.0"],
        [{ guild_folders: Array.from({ length: 201 }, (_, i) => ({ id: i, guild_ids: [] })) }, "guild_folders"],
        [{ guild_folders: [{ id: 1, guild_ids: ids(201) }] }, "guild_folders.0.guild_ids"],
        [{ guild_folders: [{ id: 1, icon: "rocket", guild_ids: [] }] }, "guild_folders.0.icon"],
        [{ guild_folders: [{ id: 1, color: 0x1000000, guild_ids: [] }] }, "guild_folders.0.color"],
        [{ trusted_domains: [""] }, "trusted_domains.0"],
        [{ trusted_domains: Array.from({ length: 1001 }, () => "a.example") }, "trusted_domains"],
        [{ synced_preferences: "not base64!" }, "synced_preferences"],
        [{ developer_mode: "yes" }, "developer_mode"]
      ]
      for (const [payload, path] of bad) {
        const reply = yield* patch(token, payload)
        assert.strictEqual(reply.status, 400, JSON.stringify(payload).slice(0, 100))
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY" })
        const errors = (reply.body as { errors: Array<{ path: string }> }).errors
        assert.strictEqual(errors[0]?.path, path, JSON.stringify(errors))
      }
      // Nothing of the refused requests was kept.
      expect((yield* get(token)).body).toMatchObject({ theme: "system", afk_timeout: 600, restricted_guilds: [] })
    }))

  it.effect("the self-mention settings are kept for staff only", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      const staffOnly = {
        suppress_unprivileged_self_mentions: true,
        suppress_unprivileged_self_mentions_bypass_user_ids: ["123", "456"],
        staff_dm_access_user_ids: ["789"]
      }
      expect((yield* patch(token, staffOnly)).body).toMatchObject({
        suppress_unprivileged_self_mentions: false,
        suppress_unprivileged_self_mentions_bypass_user_ids: [],
        staff_dm_access_user_ids: []
      })
      yield* setAcls(userId)
      expect((yield* patch(token, staffOnly)).body).toMatchObject(staffOnly)
      expect((yield* patch(token, { staff_dm_access_user_ids: null })).body).toMatchObject({ staff_dm_access_user_ids: [] })
    }))
})
