import { Effect } from "effect"
import { type ChannelPatchRequest, ChannelType, type ChannelUpdateRequest } from "../model/Channels.ts"
import { type BadRequest, invalidField } from "../model/Errors.ts"

/** A PATCH of a guild channel: the group DM variant's type and fields are not for it. */
export const guildChannelPatch = (patch: ChannelPatchRequest): Effect.Effect<ChannelUpdateRequest, BadRequest> => {
  const { type, icon: _icon, owner_id: _ownerId, nicks: _nicks, ...fields } = patch
  if (type === ChannelType.GROUP_DM) return Effect.fail(invalidField("type", "INVALID_CHANNEL", "Not a group DM"))
  return Effect.succeed(type === undefined ? fields : { ...fields, type })
}
