import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

export const Bits = {
  KICK_MEMBERS: 1n << 1n,
  ADMINISTRATOR: 1n << 3n,
  MANAGE_GUILD: 1n << 5n,
  MUTE_MEMBERS: 1n << 22n,
  DEAFEN_MEMBERS: 1n << 23n,
  MOVE_MEMBERS: 1n << 24n,
  MANAGE_NICKNAMES: 1n << 27n,
  MANAGE_ROLES: 1n << 28n,
  MODERATE_MEMBERS: 1n << 40n
} as const

let nextId = 910_000_000_000_000_000n

/** A guild of `token`'s user; its id. */
export const createGuild = (token: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", "/guilds", { token, body: { name: "Members hall" } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return field(reply.body, "id")
  })

/** A role written straight into Postgres (roles are another domain's endpoints); its id. */
export const addRole = (guildId: string, permissions: bigint, position: number) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const roleId = (nextId++).toString()
    yield* queryAt(api.databaseUrl, "INSERT INTO guild_roles (id, guild_id, name, permissions, position) VALUES ($1, $2, $3, $4, $5)", [
      roleId,
      guildId,
      `role ${position}`,
      permissions.toString(),
      position
    ])
    return roleId
  })

/** Makes `userId` a member with `roles`, straight in Postgres: joining is not this domain's endpoint. */
export const addMember = (guildId: string, userId: string, roles: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    yield* queryAt(api.databaseUrl, "INSERT INTO guild_members (guild_id, user_id, roles) VALUES ($1, $2, $3::bigint[])", [
      guildId,
      userId,
      `{${roles.join(",")}}`
    ])
  })

/** Has the guild's actor re-read Postgres after rows were written behind its back. */
export const reload = (guildId: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", "/admin/guilds/reload", { token: `Admin ${api.adminKey}`, body: { guild_id: guildId } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  })

/** The guild's audit entries of `actionType`, oldest first. */
export const auditEntries = (guildId: string, actionType: number) =>
  Effect.flatMap(TestApi, (api) =>
    queryAt(
      api.databaseUrl,
      `SELECT user_id::text AS user_id, target_id, reason, changes, options FROM guild_audit_log_entries
       WHERE guild_id = $1 AND action_type = $2 ORDER BY id`,
      [guildId, actionType]
    ))
