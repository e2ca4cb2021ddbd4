import { Effect } from "effect"
import type { GuildChannel } from "./GuildChannel.ts"
import { type Forbidden, missingAccess, missingPermissions, type NotFound, unknown } from "../../../src/model/Errors.ts"
import { requireMember } from "../Access.ts"
import { channelPermissions } from "./ChannelPermissions.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import type { GuildState } from "../State.ts"

/**
 * The channel `channelId` as `userId` may see it: 403 MISSING_ACCESS for a
 * non-member or a channel they cannot view, 404 UNKNOWN_CHANNEL for none.
 */
export const visibleChannel = (
  state: GuildState,
  userId: string,
  channelId: string
): Effect.Effect<GuildChannel, Forbidden | NotFound> =>
  Effect.gen(function*() {
    yield* requireMember(state, userId)
    const channel = state.channels.get(channelId)
    if (channel === undefined) return yield* unknown("CHANNEL")
    if (!has(channelPermissions(state, userId, channel), Permission.VIEW_CHANNEL)) return yield* missingAccess()
    return channel
  })

/** A visible channel in which `userId` also holds every bit of `wanted` at `now`, else 403 MISSING_PERMISSIONS. */
export const managedChannel = (
  state: GuildState,
  userId: string,
  channelId: string,
  wanted: bigint,
  now: number
): Effect.Effect<GuildChannel, Forbidden | NotFound> =>
  Effect.flatMap(visibleChannel(state, userId, channelId), (channel) =>
    has(channelPermissions(state, userId, channel, now), wanted) ? Effect.succeed(channel) : Effect.fail(missingPermissions()))
