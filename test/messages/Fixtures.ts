import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { identified } from "../gateway/Client.ts"
import { field, type Reply, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { Permission } from "../../src/model/Permissions.ts"

let nextRoleId = 8_100_000_000_000_000_000n

/** A guild owned by a fresh user: the owner, the guild and its first text channel ("general"). */
export const guildWithChannel = Effect.gen(function*() {
  const api = yield* TestApi
  const owner = yield* api.register()
  const reply = yield* api.request("POST", "/guilds", { token: owner.token, body: { name: "Messages" } })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  const channels = (reply.body as { channels: ReadonlyArray<{ id: string }> }).channels
  return { owner, guildId: field(reply.body, "id"), channelId: channels[0]?.id ?? "" }
})

/**
 * What search tests start from: a guild with its channel, a member holding
 * `permissions`, and a second channel ("secret") that member cannot view.
 */
export const guildWithSecretChannel = (permissions: bigint) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const { owner, guildId, channelId } = yield* guildWithChannel
    const member = yield* memberWith(guildId, permissions)
    const reply = yield* api.request("POST", `/guilds/${guildId}/channels`, {
      token: owner.token,
      body: { type: 0, name: "secret", permission_overwrites: [{ id: member.roleId, type: 0, deny: String(Permission.VIEW_CHANNEL) }] }
    })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return { owner, guildId, channelId, member, secret: field(reply.body, "id") }
  })

/**
 * A registered user made a member of the guild, with a role holding exactly
 * `permissions` (stored, then the actor reloaded). The @everyone role's
 * permissions are set to none first, so the role is all they have.
 */
export const memberWith = (guildId: string, permissions: bigint) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const joiner = yield* api.register()
    const roleId = (nextRoleId++).toString()
    yield* queryAt(api.databaseUrl, "UPDATE guild_roles SET permissions = 0 WHERE id = $1", [guildId])
    yield* queryAt(api.databaseUrl, "INSERT INTO guild_roles (id, guild_id, name, permissions, position) VALUES ($1, $2, 'r', $3, 1)", [
      roleId,
      guildId,
      permissions.toString()
    ])
    yield* queryAt(api.databaseUrl, "INSERT INTO guild_members (guild_id, user_id, roles) VALUES ($1, $2, $3::bigint[])", [
      guildId,
      joiner.userId,
      `{${roleId}}`
    ])
    yield* reload(guildId)
    return { ...joiner, roleId }
  })

/** Has the guild's actor re-read Postgres (rows written behind its back, or to check what a reload sees). */
export const reload = (guildId: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", "/admin/guilds/reload", { token: `Admin ${api.adminKey}`, body: { guild_id: guildId } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  })

/** Sends a message; its reply. */
/** A channel of the guild made over HTTP (a text channel unless `body` says otherwise); its id. */
export const newChannel = (token: string, guildId: string, body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", `/guilds/${guildId}/channels`, { token, body: { type: 0, ...body } })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return field(reply.body, "id")
  })

/** One channel's entry of READY's read_state. */
export interface ReadStateEntry {
  readonly id: string
  readonly mention_count: number
  readonly last_message_id: string | null
  readonly last_pin_timestamp: string | null
}

/** The read states a new session of `token` starts with (READY's read_state), by channel. */
export const readyReadStates = (token: string) =>
  Effect.gen(function*() {
    const { client, ready } = yield* identified(token)
    client.close(1000)
    const entries = (ready.read_state as { entries: ReadonlyArray<ReadStateEntry> }).entries
    return new Map(entries.map((e) => [e.id, e]))
  })

/**
 * A message whose embeds are `embeds` as stored: the API makes rich embeds only (no
 * link previews, so no other types or providers), so they are written to Postgres.
 */
export const withEmbeds = (token: string, channelId: string, content: string, embeds: ReadonlyArray<Record<string, unknown>>) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const id = yield* sent(token, channelId, content)
    yield* queryAt(api.databaseUrl, "UPDATE messages SET embeds = $1::jsonb WHERE channel_id = $2 AND id = $3", [
      JSON.stringify(embeds),
      channelId,
      id
    ])
    return id
  })

export const send = (token: string, channelId: string, body: Record<string, unknown>) =>
  Effect.flatMap(TestApi, (api) => api.request("POST", `/channels/${channelId}/messages`, { token, body }))

/** Sends `content` and answers the new message's id. */
export const sent = (token: string, channelId: string, content: string) =>
  Effect.map(send(token, channelId, { content }), (reply) => {
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return field(reply.body, "id")
  })

/** The ids of a page of messages, in the order given. */
export const idsOf = (reply: Reply): ReadonlyArray<string> => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return (reply.body as ReadonlyArray<{ id: string }>).map((m) => m.id)
}

/** The validation code of the first field error. */
export const fieldCode = (reply: Reply): string | undefined =>
  (reply.body as { errors?: ReadonlyArray<{ code?: string }> }).errors?.[0]?.code
