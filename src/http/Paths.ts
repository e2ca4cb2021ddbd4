import type { Schema } from "effect"
import { ChannelId, GuildId, MessageId, RoleId, Snowflake, UserId } from "../model/Ids.ts"

/*
 * The path parameters of the API, each shape declared once: handlers get the
 * ids decoded and branded, so the ids of a path cannot be passed in each
 * other's places.
 */

export const GuildPath = { guild_id: GuildId }
/** A user in a guild: a member, a ban. */
export const GuildUserPath = { guild_id: GuildId, user_id: UserId }
export const RolePath = { guild_id: GuildId, role_id: RoleId }
export const MemberRolePath = { guild_id: GuildId, user_id: UserId, role_id: RoleId }

export const ChannelPath = { channel_id: ChannelId }
/** A recipient of a group DM. */
export const RecipientPath = { channel_id: ChannelId, user_id: UserId }
/** A permission overwrite names a role or a member. */
export const OverwritePath = { channel_id: ChannelId, overwrite_id: Snowflake }
export const MessagePath = { channel_id: ChannelId, message_id: MessageId }
/** A message path as a handler receives it, for helpers shared by a message's routes. */
export type MessagePath = Schema.Struct.Type<typeof MessagePath>

/** A message of the user's own lists (mentions, saved messages), outside its channel. */
export const OwnMessagePath = { message_id: MessageId }
export const UserPath = { user_id: UserId }
/** The user a note, a profile or a reaction is about. */
export const TargetUserPath = { target_id: UserId }
