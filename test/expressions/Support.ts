import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

export const createGuild = (token: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", "/guilds", { token, body: { name: "Expressions" } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return field(reply.body, "id")
  })

/** Makes `userId` a member straight in Postgres, then has the actor reload the guild. */
export const addMember = (guildId: string, userId: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    yield* queryAt(api.databaseUrl, "INSERT INTO guild_members (guild_id, user_id) VALUES ($1, $2)", [guildId, userId])
    const reload = yield* api.request("POST", "/admin/guilds/reload", {
      token: `Admin ${api.adminKey}`,
      body: { guild_id: guildId }
    })
    assert.strictEqual(reload.status, 200, JSON.stringify(reload.body))
  })

/** Sets the @everyone role's permissions, then reloads the guild. */
export const setEveryone = (guildId: string, permissions: bigint) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    yield* queryAt(api.databaseUrl, "UPDATE guild_roles SET permissions = $1 WHERE id = $2", [permissions.toString(), guildId])
    yield* api.request("POST", "/admin/guilds/reload", { token: `Admin ${api.adminKey}`, body: { guild_id: guildId } })
  })

/** The guild's expression audit entries, oldest first. */
export const auditEntries = (guildId: string) =>
  Effect.flatMap(TestApi, (api) =>
    queryAt(
      api.databaseUrl,
      `SELECT action_type, target_id, user_id::text AS user_id, reason, changes FROM guild_audit_log_entries
       WHERE guild_id = $1 AND action_type IN (60, 61, 62, 90, 91, 92) ORDER BY id`,
      [guildId]
    ))

/** A new guild with its owner, a member without roles, and a stranger who is not in it. */
export const ownerMemberStranger = () =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const owner = yield* api.register()
    const member = yield* api.register()
    const stranger = yield* api.register()
    const guildId = yield* createGuild(owner.token)
    yield* addMember(guildId, member.userId)
    return { api, owner, member, stranger, guildId }
  })
