import { Effect, Schema } from "effect"
import { sendableChannel } from "../messages/MessageAccess.ts"
import { read } from "../Definitions.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import { CarriedId } from "../../../src/model/Ids.ts"

/**
 * Whether the viewer may send in the channel at `now` (SEND_MESSAGES, no
 * timeout; else the refusal), and attach files there (ATTACH_FILES): asked
 * before a multipart create's body is read, so a refused upload is neither
 * read nor stored. The create itself checks both again.
 */
export const checkAttach = read("CheckAttach", { channelId: CarriedId.ChannelId, now: Schema.Number }, Schema.Boolean, (state, { channelId, now }, viewerId) =>
  Effect.map(sendableChannel(state, viewerId, channelId, now), ({ permissions }) => has(permissions, Permission.ATTACH_FILES)))

export const messageUploadReads = [checkAttach] as const
