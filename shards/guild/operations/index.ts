import { guildReads, guildWrites } from "./Guild.ts"
import { adminGuildReads, adminGuildWrites } from "./AdminGuild.ts"
import { adminMembersWrites } from "./AdminMembers.ts"
import { membersReads, membersWrites } from "./Members.ts"
import { memberUsersWrites } from "./MemberUsers.ts"
import { settingsReads, settingsWrites } from "./Settings.ts"
import { roleReads, roleWrites } from "./Roles.ts"
import { channelLayoutWrites } from "./ChannelLayout.ts"
import { channelsReads, channelsWrites } from "./Channels.ts"
import { expressionsReads, expressionsWrites } from "./Expressions.ts"
import { bansReads, bansWrites } from "./Bans.ts"
import { invitesReads, invitesWrites } from "./Invites.ts"
import { discoveryWrites } from "./Discovery.ts"
import { adminDiscoveryWrites } from "./AdminDiscovery.ts"
import { adminAssetsWrites } from "./AdminAssets.ts"
import { botsWrites } from "./Bots.ts"
import { messagesWrites } from "./Messages.ts"
import { messageEditWrites } from "./MessageEdits.ts"
import { deleteAttachment } from "./MessageAttachments.ts"
import { messageReads } from "./MessageReads.ts"
import { reactionReads, reactionWrites } from "./Reactions.ts"
import { pinReads, pinWrites } from "./Pins.ts"
import { gatewayMemberReads } from "./GatewayMembers.ts"
import { gatewayGuildReads } from "./GatewayGuild.ts"
import { messageAckWrites } from "./MessageAcks.ts"
import { messageVisibilityReads } from "./MessageVisibility.ts"
import { messageUploadReads } from "./MessageUploads.ts"
import { messageJobReads, messageJobWrites } from "./MessageJobs.ts"
import { adminMessageWrites } from "./AdminMessages.ts"
import { temporaryMembersWrites } from "./TemporaryMembers.ts"
import { voiceReads } from "./Voice.ts"
import { webhooksReads, webhooksWrites } from "./Webhooks.ts"
import { webhookMessageReads, webhookMessageWrites } from "./WebhookMessages.ts"
import { registryOf } from "../../actors/Registry.ts"

/**
 * Every write and read a guild actor runs. A sub-domain adds its definitions
 * in a file of its own and spreads them in here; nothing else changes.
 */
export const writes = [
  ...settingsWrites,
  ...membersWrites,
  ...memberUsersWrites,
  ...roleWrites,
  ...channelsWrites,
  ...channelLayoutWrites,
  ...expressionsWrites,
  ...guildWrites,
  ...bansWrites,
  ...invitesWrites,
  ...discoveryWrites,
  ...adminDiscoveryWrites,
  ...adminAssetsWrites,
  ...botsWrites,
  ...messagesWrites,
  ...messageEditWrites,
  ...reactionWrites,
  ...pinWrites,
  ...messageJobWrites,
  ...adminMessageWrites,
  deleteAttachment,
  ...messageAckWrites,
  ...temporaryMembersWrites,
  ...adminGuildWrites,
  ...adminMembersWrites,
  ...webhooksWrites,
  ...webhookMessageWrites
] as const

export const reads = [
  ...settingsReads,
  ...membersReads,
  ...roleReads,
  ...channelsReads,
  ...expressionsReads,
  ...guildReads,
  ...bansReads,
  ...invitesReads,
  ...gatewayMemberReads,
  ...gatewayGuildReads,
  ...messageReads,
  ...reactionReads,
  ...pinReads,
  ...messageJobReads,
  ...messageVisibilityReads,
  ...messageUploadReads,
  ...voiceReads,
  ...adminGuildReads,
  ...webhooksReads,
  ...webhookMessageReads
] as const

export const { WriteCommand, ReadQuery, writeOf, readOf, isListedWrite, unlisted, travellingCommand, travellingQuery } =
  registryOf("shards/guild/operations/index.ts", writes, reads)
