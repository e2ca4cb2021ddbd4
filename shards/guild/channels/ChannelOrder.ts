import { Effect } from "effect"
import type { GuildChannel } from "./GuildChannel.ts"
import type { ChannelPositionUpdateRequest } from "../../../src/model/Channels.ts"
import { type BadRequest, invalidField } from "../../../src/model/Errors.ts"
import type { LimitReader } from "../../../src/model/Limits.ts"
import { checkParent } from "./ChannelRules.ts"
import type { GuildState } from "../State.ts"

/** The guild's channels in display order: by position, ties by id. */
export const ordered = (channels: Iterable<GuildChannel>): Array<GuildChannel> =>
  [...channels].sort((a, b) =>
    (a.position ?? 0) - (b.position ?? 0) || (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0))

/**
 * Applies a position update: each item may move its channel under another
 * parent (syncing the parent's overwrites with lock_permissions), to an
 * absolute index, or right after a sibling (`preceding_sibling_id`, null for
 * first among its siblings). Positions are then renumbered 0..n-1 in order.
 * Answers the channels that changed, as they are now.
 */
export const reposition = (
  state: GuildState,
  items: ChannelPositionUpdateRequest,
  limits: LimitReader
): Effect.Effect<ReadonlyArray<GuildChannel>, BadRequest> =>
  Effect.gen(function*() {
    const byId = new Map(state.channels)
    let order = ordered(state.channels.values()).map((c) => c.id)
    for (const [index, item] of items.entries()) {
      const channel = byId.get(item.id)
      if (channel === undefined) {
        return yield* invalidField(`${index}.id`, "ALL_CHANNELS_MUST_BELONG_TO_GUILD", "Channel is not in this guild")
      }
      let moved = channel
      if (item.parent_id !== undefined && item.parent_id !== channel.parent_id) {
        if (item.parent_id === item.id) {
          return yield* invalidField(`${index}.parent_id`, "CANNOT_POSITION_CHANNEL_RELATIVE_TO_ITSELF", "A channel cannot be its own parent")
        }
        yield* checkParent({ ...state, channels: byId }, channel.type, item.parent_id, `${index}.parent_id`, "CATEGORIES_CANNOT_HAVE_PARENT_CHANNEL", limits, item.id)
        moved = { ...moved, parent_id: item.parent_id }
      }
      if (item.lock_permissions === true && moved.parent_id != null) {
        moved = { ...moved, permission_overwrites: byId.get(moved.parent_id)?.permission_overwrites ?? [] }
      }
      byId.set(item.id, moved)
      if (item.preceding_sibling_id !== undefined) {
        const preceding = item.preceding_sibling_id
        if (preceding === item.id) {
          return yield* invalidField(`${index}.preceding_sibling_id`, "CANNOT_POSITION_CHANNEL_RELATIVE_TO_ITSELF", "A channel cannot follow itself")
        }
        order = order.filter((id) => id !== item.id)
        if (preceding === null) {
          const firstSibling = order.findIndex((id) => (byId.get(id)?.parent_id ?? null) === (moved.parent_id ?? null))
          const parentAt = moved.parent_id == null ? -1 : order.indexOf(moved.parent_id)
          order.splice(firstSibling === -1 ? parentAt + 1 : firstSibling, 0, item.id)
        } else {
          const sibling = byId.get(preceding)
          if (sibling === undefined) {
            return yield* invalidField(`${index}.preceding_sibling_id`, "PRECEDING_CHANNEL_NOT_IN_GUILD", "Preceding channel is not in this guild")
          }
          if ((sibling.parent_id ?? null) !== (moved.parent_id ?? null)) {
            return yield* invalidField(`${index}.preceding_sibling_id`, "PRECEDING_CHANNEL_MUST_SHARE_PARENT", "Preceding channel must share the parent")
          }
          order.splice(order.indexOf(preceding) + 1, 0, item.id)
        }
      } else if (item.position !== undefined) {
        order = order.filter((id) => id !== item.id)
        order.splice(Math.min(item.position, order.length), 0, item.id)
      }
    }
    return order.flatMap((id, position) => {
      const now = byId.get(id)
      const before = state.channels.get(id)
      if (now === undefined || before === undefined) return []
      const next = { ...now, position }
      return JSON.stringify(next) === JSON.stringify(before) ? [] : [next]
    })
  })
