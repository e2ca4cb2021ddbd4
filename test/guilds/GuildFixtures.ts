import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

/** A guild of `token`'s user; its id. */
export const createGuild = (token: string, name = "The Hall") =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", "/guilds", { token, body: { name } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return field(reply.body, "id")
  })

let nextRole = 900_000_000_000_000_000n

/**
 * Makes `userId` a member (with a role granting `permissions`, when given)
 * straight in Postgres, then has the guild's actor reload: joining is not
 * this domain's endpoint.
 */
export const addMember = (guildId: string, userId: string, permissions?: bigint) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const roles: Array<string> = []
    if (permissions !== undefined) {
      const roleId = (nextRole++).toString()
      yield* queryAt(
        api.databaseUrl,
        "INSERT INTO guild_roles (id, guild_id, name, permissions, position) VALUES ($1, $2, 'granted', $3, 1)",
        [roleId, guildId, permissions.toString()]
      )
      roles.push(roleId)
    }
    yield* queryAt(api.databaseUrl, "INSERT INTO guild_members (guild_id, user_id, roles) VALUES ($1, $2, $3::bigint[])", [
      guildId,
      userId,
      `{${roles.join(",")}}`
    ])
    const reload = yield* api.request("POST", "/admin/guilds/reload", {
      token: `Admin ${api.adminKey}`,
      body: { guild_id: guildId }
    })
    assert.strictEqual(reload.status, 200, JSON.stringify(reload.body))
  })

/** The guild's audit entries, newest first, as the actor stored them. */
export const auditEntries = (guildId: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    return yield* queryAt(
      api.databaseUrl,
      "SELECT user_id::text AS user_id, action_type, target_id, reason, changes FROM guild_audit_log_entries WHERE guild_id = $1 ORDER BY id DESC",
      [guildId]
    )
  })
