import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { field, TestApi } from "./Api.ts"
import { queryAt } from "./Postgres.ts"

/**
 * The people and the guild most guild tests start from. The guild is made
 * over HTTP as a user would; memberships and roles are written straight to
 * Postgres (joining and role management are other domains' endpoints) and
 * the guild's actor is then told to reload.
 */

/** A guild of `token`'s user: its id, its first text channel ("general") and the create reply's body. */
export const createGuild = (token: string, name = "The Hall") =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", "/guilds", { token, body: { name } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const channels = (reply.body as { channels: ReadonlyArray<{ id: string }> }).channels
    const channelId = channels[0]?.id
    if (channelId === undefined) throw new Error(`the new guild has no channel: ${JSON.stringify(reply.body)}`)
    return { guildId: field(reply.body, "id"), channelId, body: reply.body }
  })

// Above every snowflake the API will mint for decades, so a fixture's role never takes an id the API hands out.
let nextRoleId = 8_100_000_000_000_000_000n

/** A role named "staff" holding `permissions`, stored without the actor knowing (call `reload`); its id. */
export const addRole = (guildId: string, permissions: bigint, position = 1) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const roleId = (nextRoleId++).toString()
    yield* queryAt(api.databaseUrl, "INSERT INTO guild_roles (id, guild_id, name, permissions, position) VALUES ($1, $2, 'staff', $3, $4)", [
      roleId,
      guildId,
      permissions.toString(),
      position
    ])
    return roleId
  })

/** Makes `userId` a member with `roles`, stored without the actor knowing (call `reload`). */
export const joinGuild = (guildId: string, userId: string, roles: ReadonlyArray<string> = []) =>
  Effect.flatMap(TestApi, (api) =>
    queryAt(api.databaseUrl, "INSERT INTO guild_members (guild_id, user_id, roles) VALUES ($1, $2, $3::bigint[])", [
      guildId,
      userId,
      `{${roles.join(",")}}`
    ]))

/** Has the guild's actor re-read Postgres (rows written behind its back, or to check what a reload sees). */
export const reload = (guildId: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", "/admin/guilds/reload", { token: `Admin ${api.adminKey}`, body: { guild_id: guildId } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  })

/** Makes `userId` a member, with a role granting `permissions` when given, and reloads the guild. */
export const addMember = (guildId: string, userId: string, permissions?: bigint) =>
  Effect.gen(function*() {
    const roles = permissions === undefined ? [] : [yield* addRole(guildId, permissions)]
    yield* joinGuild(guildId, userId, roles)
    yield* reload(guildId)
  })

/** A fresh user made a member with a role holding `permissions`: the user and the role's id. */
export const newMember = (guildId: string, permissions: bigint) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const joiner = yield* api.register()
    const roleId = yield* addRole(guildId, permissions)
    yield* joinGuild(guildId, joiner.userId, [roleId])
    yield* reload(guildId)
    return { ...joiner, roleId }
  })

/** Sets the @everyone role's permissions (its id is the guild's), then reloads the guild. */
export const setEveryone = (guildId: string, permissions: bigint) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    yield* queryAt(api.databaseUrl, "UPDATE guild_roles SET permissions = $1 WHERE id = $2", [permissions.toString(), guildId])
    yield* reload(guildId)
  })

/**
 * A new guild with its channel, its owner, a member (with a role granting
 * `memberPermissions` when given, else only @everyone's) and a stranger who
 * is not in it.
 */
export const cast = (options: { readonly memberPermissions?: bigint } = {}) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const owner = yield* api.register()
    const member = yield* api.register()
    const stranger = yield* api.register()
    const { guildId, channelId } = yield* createGuild(owner.token)
    yield* addMember(guildId, member.userId, options.memberPermissions)
    return { api, owner, member, stranger, guildId, channelId }
  })
