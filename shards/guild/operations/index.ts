import { Schema } from "effect"
import { guildReads, guildWrites } from "./Guild.ts"
import { membersReads, membersWrites } from "./Members.ts"
import { settingsReads, settingsWrites } from "./Settings.ts"
import { roleReads, roleWrites } from "./Roles.ts"
import { channelLayoutWrites } from "./ChannelLayout.ts"
import { channelsReads, channelsWrites } from "./Channels.ts"
import { expressionsReads, expressionsWrites } from "./Expressions.ts"
import { bansReads, bansWrites } from "./Bans.ts"
import { invitesReads, invitesWrites } from "./Invites.ts"
import { discoveryWrites } from "./Discovery.ts"
import { botsWrites } from "./Bots.ts"
import { messagesWrites } from "./Messages.ts"
import { messageEditWrites } from "./MessageEdits.ts"
import { deleteAttachment } from "./MessageAttachments.ts"
import { messageReads } from "./MessageReads.ts"
import { reactionReads, reactionWrites } from "./Reactions.ts"
import { pinReads, pinWrites } from "./Pins.ts"
import { gatewayMemberReads } from "./GatewayMembers.ts"
import { messageAckWrites } from "./MessageAcks.ts"
import { messageVisibilityReads } from "./MessageVisibility.ts"
import { messageUploadReads } from "./MessageUploads.ts"
import { messageJobReads, messageJobWrites } from "./MessageJobs.ts"
import { temporaryMembersWrites } from "./TemporaryMembers.ts"
import { voiceReads } from "./Voice.ts"

/**
 * Every write and read a guild actor runs. A sub-domain adds its definitions
 * in a file of its own and spreads them in here; nothing else changes.
 */
export const writes = [
  ...settingsWrites,
  ...membersWrites,
  ...roleWrites,
  ...channelsWrites,
  ...channelLayoutWrites,
  ...expressionsWrites,
  ...guildWrites,
  ...bansWrites,
  ...invitesWrites,
  ...discoveryWrites,
  ...botsWrites,
  ...messagesWrites,
  ...messageEditWrites,
  ...reactionWrites,
  ...pinWrites,
  ...messageJobWrites,
  deleteAttachment,
  ...messageAckWrites,
  ...temporaryMembersWrites
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
  ...messageReads,
  ...reactionReads,
  ...pinReads,
  ...messageJobReads,
  ...messageVisibilityReads,
  ...messageUploadReads,
  ...voiceReads
] as const

/** Any write command, as it travels to the actor. */
export const WriteCommand = Schema.Union(writes.map((w) => w.command))

/** Any read query, as it travels to the actor. */
export const ReadQuery = Schema.Union(reads.map((r) => r.query))

const writesByTag: ReadonlyMap<string, (typeof writes)[number]> = new Map(writes.map((w) => [w.tag, w]))
const readsByTag: ReadonlyMap<string, (typeof reads)[number]> = new Map(reads.map((r) => [r.tag, r]))

export const writeOf = (tag: string) => writesByTag.get(tag)

const registeredWrites: ReadonlySet<{ readonly tag: string }> = new Set(writes)

/** Whether `definition` is listed above (an unlisted one could not cross to an actor in another process). */
export const isListedWrite = (definition: { readonly tag: string }): boolean => registeredWrites.has(definition)
export const readOf = (tag: string) => readsByTag.get(tag)
