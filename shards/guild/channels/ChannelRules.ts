import { Effect } from "effect"
import type { GuildChannel } from "./GuildChannel.ts"
import { ChannelType, type OverwriteRequest } from "../../../src/model/Channels.ts"
import { BadRequest, type Forbidden, invalidField, missingPermissions } from "../../../src/model/Errors.ts"
import type { LimitReader } from "../../../src/model/Limits.ts"
import { channelPermissions, type Overwrite } from "./ChannelPermissions.ts"
import type { GuildState } from "../State.ts"
import { permissionsAt } from "../members/Timeouts.ts"

const FLEXIBLE_NAMES = "TEXT_CHANNEL_FLEXIBLE_NAMES"

/**
 * Text channel names are lower case with dashes for spaces, unless the guild
 * has flexible names; other types keep the name as given (trimmed).
 */
export const normalizeName = (state: GuildState, type: number, path: string, name: string): Effect.Effect<string, BadRequest> => {
  const trimmed = name.trim()
  const normalized = type === ChannelType.TEXT && !state.guild.features.includes(FLEXIBLE_NAMES)
    ? trimmed.toLowerCase().replace(/\s+/g, "-")
    : trimmed
  return normalized === ""
    ? Effect.fail(invalidField(path, "CHANNEL_NAME_EMPTY_AFTER_NORMALIZATION", "Name is empty once normalized"))
    : Effect.succeed(normalized)
}

const childrenOf = (state: GuildState, parentId: string) =>
  [...state.channels.values()].filter((c) => c.parent_id === parentId)

/** A parent for a channel of `type`: null, or a category of this guild with room left. */
export const checkParent = (
  state: GuildState,
  type: number,
  parentId: string | null | undefined,
  path: string,
  categoryRule: string,
  limits: LimitReader,
  movingId?: string
): Effect.Effect<void, BadRequest> => {
  if (parentId == null) return Effect.void
  if (type === ChannelType.CATEGORY) return Effect.fail(invalidField(path, categoryRule, "Categories cannot have a parent channel"))
  const parent = state.channels.get(parentId)
  if (parent === undefined) return Effect.fail(invalidField(path, "PARENT_CHANNEL_NOT_IN_GUILD", "Parent channel is not in this guild"))
  if (parent.type !== ChannelType.CATEGORY) return Effect.fail(invalidField(path, "PARENT_MUST_BE_CATEGORY", "Parent must be a category"))
  const siblings = childrenOf(state, parentId).filter((c) => c.id !== movingId)
  const max = limits("max_channels_per_category", { guildFeatures: state.guild.features })
  return siblings.length >= max
    ? Effect.fail(new BadRequest({ code: "MAX_CATEGORY_CHANNELS", message: `Maximum number of channels in category reached (${max})` }))
    : Effect.void
}

/** Room for one more channel under the instance's limit (src/platform/Limits.ts). */
export const checkGuildRoom = (state: GuildState, limits: LimitReader): Effect.Effect<void, BadRequest> => {
  const max = limits("max_guild_channels", { guildFeatures: state.guild.features })
  return state.channels.size >= max
    ? Effect.fail(new BadRequest({ code: "MAX_GUILD_CHANNELS", message: `Maximum number of guild channels reached (${max})` }))
    : Effect.void
}

export const bitsOf = (value: string | number | undefined): bigint => BigInt(value ?? 0)

/** An overwrite as stored, from its request. */
export const toOverwrite = (o: OverwriteRequest): Overwrite => ({
  id: o.id,
  type: o.type,
  allow: bitsOf(o.allow).toString(),
  deny: bitsOf(o.deny).toString()
})

/**
 * Overwrites `actorId` may set: each names a role or member of the guild, and
 * touches no bit the actor does not hold (where the channel exists, in it).
 */
export const checkOverwrites = (
  state: GuildState,
  actorId: string,
  channel: GuildChannel | undefined,
  overwrites: ReadonlyArray<Overwrite>,
  path: string,
  now: number
): Effect.Effect<void, BadRequest | Forbidden> =>
  Effect.gen(function*() {
    const held = channel === undefined ? permissionsAt(state, actorId, now) : channelPermissions(state, actorId, channel, now)
    for (const [index, o] of overwrites.entries()) {
      if (o.type === 0 && !state.roles.has(o.id)) {
        return yield* invalidField(`${path}.${index}.id`, "INVALID_ROLE_ID", "Role is not in this guild")
      }
      const touched = BigInt(o.allow) | BigInt(o.deny)
      if ((touched & ~held) !== 0n) return yield* missingPermissions()
    }
  })

/** A link channel's url: absent, null, or an http(s) URL. */
export const checkUrl = (url: string | null | undefined, path: string): Effect.Effect<void, BadRequest> => {
  if (url == null) return Effect.void
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  return parsed !== undefined && (parsed.protocol === "https:" || parsed.protocol === "http:")
    ? Effect.void
    : Effect.fail(invalidField(path, "INVALID_URL_FORMAT", "Not a valid http(s) URL"))
}
