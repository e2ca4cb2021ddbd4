import { Effect, Schema } from "effect"
import { ChannelCreateRequest, ChannelType, ChannelUpdateRequest } from "../../../src/model/Channels.ts"
import { pinRefusal, RegionRule } from "../../../src/model/RtcRegions.ts"
import { ChannelResponse } from "../../../src/model/Guilds.ts"
import { invalidField } from "../../../src/model/Errors.ts"
import { changesOf, requireMember, requirePermission } from "../Access.ts"
import { managedChannel, visibleChannel } from "../channels/ChannelAccess.ts"
import { ordered } from "../channels/ChannelOrder.ts"
import { canView } from "../channels/ChannelPermissions.ts"
import { channelView, type GuildChannel } from "../channels/GuildChannel.ts"
import { removeChannel, saveChannel } from "../channels/ChannelRows.ts"
import { checkGuildRoom, checkOverwrites, checkParent, checkUrl, normalizeName, toOverwrite } from "../channels/ChannelRules.ts"
import { type GuildEvent, read, unchanged, write } from "../Definitions.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import type { GuildState } from "../State.ts"
import { viewFor } from "../Views.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

/** Audit log action types (part C, AuditLogActionType). */
const CHANNEL_CREATE = 10
const CHANNEL_UPDATE = 11
const CHANNEL_DELETE = 12

const DEFAULT_BITRATE = 64000

const withChannel = (state: GuildState, channel: GuildChannel): GuildState => ({
  ...state,
  channels: new Map(state.channels).set(channel.id, channel)
})

/** GET /guilds/{id}/channels: the channels the viewer can see, in display order. */
export const listChannels = read("ListChannels", {}, Schema.Array(ChannelResponse), (state, _query, viewerId) =>
  Effect.as(
    requireMember(state, viewerId),
    ordered(state.channels.values()).filter((c) => canView(state, viewerId, c)).map(channelView)
  ))

/** GET /channels/{id}: a channel the viewer can see. */
export const getChannel = read("GetChannel", { channelId: CarriedId.ChannelId }, ChannelResponse, (state, { channelId }, viewerId) =>
  Effect.map(visibleChannel(state, viewerId, channelId), channelView))

/** POST /guilds/{id}/channels: MANAGE_CHANNELS (and MANAGE_ROLES for overwrites); appended at the end. */
export const createChannel = write(
  "CreateChannel",
  { channelId: CarriedId.ChannelId, request: ChannelCreateRequest },
  ChannelResponse,
  (state, { channelId, request }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.MANAGE_CHANNELS, context.now)
      yield* checkGuildRoom(state, context.limits)
      const name = yield* normalizeName(state, request.type, "name", request.name)
      yield* checkUrl(request.url, "url")
      yield* checkParent(state, request.type, request.parent_id, "parent_id", "CATEGORIES_CANNOT_HAVE_PARENTS", context.limits)
      const parent = request.parent_id == null ? undefined : state.channels.get(request.parent_id)
      const overwrites = request.permission_overwrites?.map(toOverwrite)
      if (overwrites !== undefined && overwrites.length > 0) {
        yield* requirePermission(state, context.actorId, Permission.MANAGE_ROLES, context.now)
        yield* checkOverwrites(state, context.actorId, undefined, overwrites, "permission_overwrites", context.now)
      }
      const voice = request.type === ChannelType.VOICE
      const channel: GuildChannel = {
        id: channelId,
        guild_id: context.guildId,
        name,
        topic: request.topic ?? null,
        type: request.type,
        position: state.channels.size,
        parent_id: parent?.id ?? null,
        nsfw: request.nsfw ?? false,
        // Created in a category without overwrites of its own: synced with the category.
        permission_overwrites: overwrites ?? parent?.permission_overwrites ?? [],
        ...(request.type === ChannelType.LINK ? { url: request.url ?? null } : {}),
        ...(voice ? { bitrate: request.bitrate ?? DEFAULT_BITRATE, user_limit: request.user_limit ?? 0 } : {}),
        ...(request.type === ChannelType.TEXT && (request.rate_limit_per_user ?? 0) > 0
          ? { rate_limit_per_user: request.rate_limit_per_user ?? 0 }
          : {})
      }
      const view = channelView(channel)
      const { id: _id, guild_id: _guild, ...shown } = view
      return {
        next: withChannel(state, channel),
        reply: view,
        persist: saveChannel(context.guildId, channel),
        audit: [{ actionType: CHANNEL_CREATE, targetId: channelId, changes: changesOf<Partial<ChannelResponse>>({}, shown) }],
        events: [{ type: "CHANNEL_CREATE", data: view }]
      }
    })
)

/**
 * PATCH /channels/{id}: MANAGE_CHANNELS in the channel (and MANAGE_ROLES for overwrites).
 * `regions`: the configured voice regions (VoiceCatalog), which the caller reads
 * for a patch that pins one; this guild's features decide which it may pin.
 */
export const updateChannel = write(
  "UpdateChannel",
  { channelId: CarriedId.ChannelId, patch: ChannelUpdateRequest, regions: Schema.optional(Schema.Array(RegionRule)) },
  ChannelResponse,
  (state, { channelId, patch, regions }, context) =>
    Effect.gen(function*() {
      const before = yield* managedChannel(state, context.actorId, channelId, Permission.MANAGE_CHANNELS, context.now)
      if (patch.type !== undefined && patch.type !== before.type) {
        return yield* invalidField("type", "INVALID_CHANNEL_TYPE", "A channel's type cannot change")
      }
      const { permission_overwrites, name, nsfw, rate_limit_per_user } = patch
      yield* checkUrl(patch.url, "url")
      if (patch.rtc_region != null) {
        const caller = { guildId: context.guildId, guildFeatures: state.guild.features, userId: context.actorId }
        const refusal = pinRefusal(regions ?? [], caller, patch.rtc_region)
        if (refusal !== undefined) return yield* invalidField("rtc_region", refusal, "Unknown or restricted voice region")
      }
      if (patch.parent_id !== undefined && patch.parent_id !== before.parent_id) {
        yield* checkParent(state, before.type, patch.parent_id, "parent_id", "CATEGORIES_CANNOT_HAVE_PARENTS", context.limits, channelId)
      }
      const overwrites = permission_overwrites?.map(toOverwrite)
      if (overwrites !== undefined) {
        yield* managedChannel(state, context.actorId, channelId, Permission.MANAGE_ROLES, context.now)
        yield* checkOverwrites(state, context.actorId, before, overwrites, "permission_overwrites", context.now)
      }
      // Each field the patch gives, named: a field added to the request is not kept until it is added here.
      const changes: Partial<GuildChannel> = {
        ...(patch.topic === undefined ? {} : { topic: patch.topic }),
        ...(patch.url === undefined ? {} : { url: patch.url }),
        ...(patch.parent_id === undefined ? {} : { parent_id: patch.parent_id }),
        ...(patch.bitrate === undefined ? {} : { bitrate: patch.bitrate }),
        ...(patch.user_limit === undefined ? {} : { user_limit: patch.user_limit }),
        ...(patch.rtc_region === undefined ? {} : { rtc_region: patch.rtc_region }),
        ...(name == null ? {} : { name: yield* normalizeName(state, before.type, "name", name) }),
        ...(nsfw == null ? {} : { nsfw }),
        ...(rate_limit_per_user === undefined ? {} : { rate_limit_per_user: rate_limit_per_user ?? 0 }),
        ...(overwrites === undefined ? {} : { permission_overwrites: overwrites })
      }
      const changed = changesOf(before, changes)
      if (changed.length === 0) return unchanged(state, channelView(before))
      const channel: GuildChannel = { ...before, ...changes }
      const view = channelView(channel)
      return {
        next: withChannel(state, channel),
        reply: view,
        persist: saveChannel(context.guildId, channel),
        audit: [{ actionType: CHANNEL_UPDATE, targetId: channelId, changes: changed }],
        events: [{ type: "CHANNEL_UPDATE", data: view }]
      }
    })
)

const SETTINGS_NAMING_CHANNELS = ["system_channel_id", "afk_channel_id", "rules_channel_id"] as const

/** DELETE /channels/{id}: MANAGE_CHANNELS in the channel; children lose their parent, settings naming it clear. */
export const deleteChannel = write("DeleteChannel", { channelId: CarriedId.ChannelId }, ChannelResponse, (state, { channelId }, context) =>
  Effect.gen(function*() {
    const channel = yield* managedChannel(state, context.actorId, channelId, Permission.MANAGE_CHANNELS, context.now)
    const channels = new Map(state.channels)
    channels.delete(channelId)
    const orphans = [...channels.values()].filter((c) => c.parent_id === channelId).map((c) => ({ ...c, parent_id: null }))
    for (const orphan of orphans) channels.set(orphan.id, orphan)
    const cleared = Object.fromEntries(
      SETTINGS_NAMING_CHANNELS.filter((key) => state.guild[key] === channelId).map((key) => [key, null])
    )
    // The channel's webhooks go with it (their rows by the foreign key).
    const webhooks = new Map([...state.webhooks].filter(([, webhook]) => webhook.channel_id !== channelId))
    const next: GuildState = { ...state, channels, webhooks, guild: { ...state.guild, ...cleared } }
    const view = channelView(channel)
    const events: Array<GuildEvent> = [
      { type: "CHANNEL_DELETE", data: view },
      ...orphans.map((c) => ({ type: "CHANNEL_UPDATE", data: channelView(c) }))
    ]
    if (Object.keys(cleared).length > 0) events.push({ type: "GUILD_UPDATE", data: viewFor(next, next.guild.owner_id) })
    const { id: _id, guild_id: _guild, ...shown } = view
    return {
      next,
      reply: view,
      persist: removeChannel(context.guildId, channelId),
      audit: [{
        actionType: CHANNEL_DELETE,
        targetId: channelId,
        changes: Object.entries(shown).map(([key, value]) => ({ key, old_value: value }))
      }],
      events
    }
  }))

export const channelsWrites = [createChannel, updateChannel, deleteChannel] as const
export const channelsReads = [listChannels, getChannel] as const
