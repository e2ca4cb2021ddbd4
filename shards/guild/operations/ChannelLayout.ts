import { Effect, Schema } from "effect"
import { ChannelPositionUpdateRequest, PermissionOverwriteCreateRequest } from "../../../src/model/Channels.ts"
import { unknown } from "../../../src/model/Errors.ts"
import { changesOf, requirePermission } from "../Access.ts"
import { managedChannel } from "../channels/ChannelAccess.ts"
import { reposition } from "../channels/ChannelOrder.ts"
import { OVERWRITE_ROLE, type Overwrite } from "../channels/ChannelPermissions.ts"
import { saveChannel } from "../channels/ChannelRows.ts"
import { channelView, type GuildChannel } from "../channels/GuildChannel.ts"
import { bitsOf, checkOverwrites } from "../channels/ChannelRules.ts"
import { type Decision, unchanged, write } from "../Definitions.ts"
import { Permission } from "../../../src/model/Permissions.ts"
import type { GuildState } from "../State.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

/** Audit log action types (part C, AuditLogActionType). */
const CHANNEL_UPDATE = 11
const OVERWRITE_CREATE = 13
const OVERWRITE_UPDATE = 14
const OVERWRITE_DELETE = 15

/** PATCH /guilds/{id}/channels: MANAGE_CHANNELS; one update entry and event per channel that changed. */
export const positionChannels = write(
  "PositionChannels",
  { items: ChannelPositionUpdateRequest },
  Schema.Null,
  (state, { items }, context) =>
    Effect.gen(function*() {
      yield* requirePermission(state, context.actorId, Permission.MANAGE_CHANNELS, context.now)
      const changed = yield* reposition(state, items, context.limits)
      const channels = new Map(state.channels)
      for (const channel of changed) channels.set(channel.id, channel)
      return {
        next: { ...state, channels },
        reply: null,
        persist: Effect.forEach(changed, (c) => saveChannel(context.guildId, c), { discard: true }),
        audit: changed.flatMap((c) => {
          const before = state.channels.get(c.id)
          return before === undefined
            ? []
            : [{ actionType: CHANNEL_UPDATE, targetId: c.id, changes: changesOf(channelView(before), channelView(c)) }]
        }),
        events: changed.map((c) => ({ type: "CHANNEL_UPDATE", data: channelView(c) }))
      }
    })
)

const overwriteOptions = (state: GuildState, o: Pick<Overwrite, "id" | "type">): Record<string, string> => {
  const roleName = o.type === OVERWRITE_ROLE ? state.roles.get(o.id)?.name : undefined
  return { id: o.id, type: String(o.type), ...(roleName === undefined ? {} : { role_name: roleName }) }
}

const withOverwrites = (
  state: GuildState,
  guildId: string,
  channel: GuildChannel,
  overwrites: ReadonlyArray<Overwrite>
): Pick<Decision<null>, "next" | "persist" | "events"> => {
  const next = { ...channel, permission_overwrites: overwrites }
  return {
    next: { ...state, channels: new Map(state.channels).set(next.id, next) },
    persist: saveChannel(guildId, next),
    events: [{ type: "CHANNEL_UPDATE", data: channelView(next) }]
  }
}

/** PUT /channels/{id}/permissions/{overwrite_id}: MANAGE_ROLES in the channel, only bits the actor holds. */
export const putOverwrite = write(
  "PutOverwrite",
  { channelId: CarriedId.ChannelId, overwriteId: Schema.String, request: PermissionOverwriteCreateRequest },
  Schema.Null,
  (state, { channelId, overwriteId, request }, context) =>
    Effect.gen(function*() {
      const channel = yield* managedChannel(state, context.actorId, channelId, Permission.MANAGE_ROLES, context.now)
      const overwrite: Overwrite = {
        id: overwriteId,
        type: request.type,
        allow: bitsOf(request.allow).toString(),
        deny: bitsOf(request.deny).toString()
      }
      if (overwrite.type === OVERWRITE_ROLE && !state.roles.has(overwriteId)) return yield* unknown("ROLE")
      if (overwrite.type !== OVERWRITE_ROLE && !state.members.has(overwriteId)) return yield* unknown("MEMBER")
      yield* checkOverwrites(state, context.actorId, channel, [overwrite], "root", context.now)
      const existing = channel.permission_overwrites
      const before = existing.find((o) => o.id === overwriteId)
      if (before !== undefined && JSON.stringify(before) === JSON.stringify(overwrite)) return unchanged(state, null)
      const overwrites = before === undefined
        ? [...existing, overwrite]
        : existing.map((o) => (o.id === overwriteId ? overwrite : o))
      return {
        ...withOverwrites(state, context.guildId, channel, overwrites),
        reply: null,
        audit: [{
          actionType: before === undefined ? OVERWRITE_CREATE : OVERWRITE_UPDATE,
          targetId: channelId,
          changes: changesOf<Partial<Overwrite>>(before ?? {}, overwrite),
          options: overwriteOptions(state, overwrite)
        }]
      }
    })
)

/** DELETE /channels/{id}/permissions/{overwrite_id}: MANAGE_ROLES in the channel; none to delete is a no-op. */
export const deleteOverwrite = write(
  "DeleteOverwrite",
  { channelId: CarriedId.ChannelId, overwriteId: Schema.String },
  Schema.Null,
  (state, { channelId, overwriteId }, context) =>
    Effect.gen(function*() {
      const channel = yield* managedChannel(state, context.actorId, channelId, Permission.MANAGE_ROLES, context.now)
      const existing = channel.permission_overwrites
      const before = existing.find((o) => o.id === overwriteId)
      if (before === undefined) return unchanged(state, null)
      yield* checkOverwrites(state, context.actorId, channel, [before], "root", context.now)
      return {
        ...withOverwrites(state, context.guildId, channel, existing.filter((o) => o.id !== overwriteId)),
        reply: null,
        audit: [{
          actionType: OVERWRITE_DELETE,
          targetId: channelId,
          changes: Object.entries(before).map(([key, value]) => ({ key, old_value: value })),
          options: overwriteOptions(state, before)
        }]
      }
    })
)

export const channelLayoutWrites = [positionChannels, putOverwrite, deleteOverwrite] as const
