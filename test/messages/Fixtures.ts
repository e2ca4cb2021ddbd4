import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { identified } from "../gateway/Client.ts"
import { field, type Reply, TestApi } from "../support/Api.ts"
import { addRole, createGuild, joinGuild, setEveryone } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { Permission } from "../../src/model/Permissions.ts"
import { SNOWFLAKE_EPOCH } from "../../src/platform/Snowflake.ts"

/** What a member needs to take part in a channel: see it, read its history and send to it. */
export const CHAT = Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES | Permission.READ_MESSAGE_HISTORY

/**
 * `ms` as wall time in UTC, without an offset (how clients send scheduled_local_at), rounded up to
 * the second: cut instead, `Date.now() + 1_000` could name a time already past when the request arrives.
 */
export const utcWall = (ms: number) => new Date(Math.ceil(ms / 1000) * 1000).toISOString().slice(0, 19)

/** A guild owned by a fresh user: the owner, the guild and its first text channel ("general"). */
export const guildWithChannel = Effect.gen(function*() {
  const api = yield* TestApi
  const owner = yield* api.register()
  const { guildId, channelId } = yield* createGuild(owner.token)
  return { owner, guildId, channelId }
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
 * `permissions`. The @everyone role's permissions are set to none, so the
 * role is all they have.
 */
export const memberWith = (guildId: string, permissions: bigint) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const joiner = yield* api.register()
    const roleId = yield* addRole(guildId, permissions)
    yield* joinGuild(guildId, joiner.userId, [roleId])
    // Reloads the guild once for all three writes: sessions see one GUILD_UPDATE, as for any other member added.
    yield* setEveryone(guildId, 0n)
    return { ...joiner, roleId }
  })

/** The id of a moment `msAgo` before now, with `low` in its lower bits: for rows written straight to Postgres, or ids too old to exist. */
export const idAgo = (msAgo: number, low = 0n) => (((BigInt(Date.now() - msAgo) - SNOWFLAKE_EPOCH) << 22n) | low).toString()

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
