import { Effect } from "effect"
import { createMessage } from "../../shards/guild/operations/Messages.ts"
import type { WriteContext } from "../../shards/guild/Definitions.ts"
import { Permission } from "../../src/model/Permissions.ts"
import { SharedMap } from "../../shards/guild/SharedMap.ts"
import { createGuild, type GuildState } from "../../shards/guild/State.ts"
import type { GuildMemberResponse, GuildRoleResponse } from "../../src/model/Guilds.ts"
import type { GuildChannel } from "../../shards/guild/channels/GuildChannel.ts"
import type { MessageCreateRequest } from "../../src/model/MessageRequests.ts"
import type { MessageResponse } from "../../src/model/Messages.ts"
import { SNOWFLAKE_EPOCH } from "../../src/platform/Snowflake.ts"
import { CarriedId } from "../../src/model/Ids.ts"
import { defaultLimits } from "../../src/model/Limits.ts"

/**
 * A guild for pure decision tests. Users: 1 owner; 2 chats (role 10); 3
 * moderates (role 11: chat and MANAGE_MESSAGES); 4 only views (role 12);
 * 5 chats but is timed out; 6 chats without EMBED_LINKS (role 14).
 * Role 13 is mentionable. Channels: 101 text, 102 voice, 103 text with a
 * 10 s slowmode. @everyone has no permissions.
 */
export const NOW = Date.parse("2026-06-01T12:00:00Z")

const user = (id: string) => ({ id, username: `u${id}`, discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 })
const CHAT = Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES | Permission.READ_MESSAGE_HISTORY | Permission.EMBED_LINKS
const role = (id: string, permissions: bigint, mentionable = false): [string, GuildRoleResponse] =>
  [id, { id, name: `r${id}`, color: 0, position: 1, permissions: permissions.toString(), hoist: false, mentionable }]
const member = (id: string, roles: ReadonlyArray<string>, until: string | null = null): [string, GuildMemberResponse] =>
  [id, { user: user(id), roles, joined_at: "2026-01-02T00:00:00.000Z", mute: false, deaf: false, communication_disabled_until: until }]
const channel = (id: string, type: number, extra: Partial<GuildChannel> = {}): [string, GuildChannel] =>
  [id, { id, guild_id: "100", name: `c${id}`, topic: null, type, position: 0, parent_id: null, nsfw: false, permission_overwrites: [], ...extra }]

const base = createGuild({ guildId: "100", channelId: "101", owner: user("1"), name: "G", icon: null, now: "2026-01-01T00:00:00.000Z" })

export const guild: GuildState = {
  ...base,
  roles: new Map([
    role("100", 0n),
    role("10", CHAT),
    role("11", CHAT | Permission.MANAGE_MESSAGES),
    role("12", Permission.VIEW_CHANNEL),
    role("13", 0n, true),
    role("14", CHAT & ~Permission.EMBED_LINKS)
  ]),
  channels: new Map([channel("101", 0), channel("102", 2), channel("103", 0, { rate_limit_per_user: 10 })]),
  members: SharedMap.from([
    ...base.members,
    member("2", ["10"]),
    member("3", ["11"]),
    member("4", ["12"]),
    member("5", ["10"], new Date(NOW + 3600_000).toISOString()),
    member("6", ["14"])
  ])
}

/** Operation ids are snowflakes of NOW, as the API process would mint them. */
let nextOperation = (BigInt(NOW) - SNOWFLAKE_EPOCH) << 22n

export const contextOf = (actorId: string, now = NOW, operationId?: string): WriteContext => ({
  guildId: "100",
  limits: defaultLimits,
  actorId,
  operationId: operationId ?? (nextOperation++).toString(),
  reason: null,
  now
})

/** A create decided for `actorId`. */
export const create = (
  state: GuildState,
  actorId: string,
  channelId: string,
  request: MessageCreateRequest,
  options: { readonly now?: number; readonly operationId?: string; readonly referenced?: MessageResponse } = {}
) =>
  createMessage.decide(
    state,
    createMessage.command.make({ channelId: CarriedId.ChannelId.make(channelId), request, referenced: options.referenced }),
    contextOf(actorId, options.now, options.operationId)
  )

/** A message sent and the state after it; fails the test when the create is refused or slowed. */
export const sendIn = (state: GuildState, actorId: string, channelId: string, request: MessageCreateRequest, now = NOW) =>
  Effect.flatMap(create(state, actorId, channelId, request, { now }), (d) =>
    "retry_after_ms" in d.reply ? Effect.die(new Error("slowed down")) : Effect.succeed({ state: d.next, message: d.reply }))

/** A refusal's validation code (its first field error's), else its code. */
export const codeOf = (e: { readonly code: string; readonly errors?: ReadonlyArray<{ readonly code?: string | undefined }> | undefined }) =>
  e.errors?.[0]?.code ?? e.code
