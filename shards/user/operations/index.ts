import { registryOf } from "../../actors/Registry.ts"
import { accountReads, accountWrites } from "./Account.ts"
import { adminWrites } from "./Admin.ts"
import { adminProfileWrites } from "./AdminProfile.ts"
import { adminSecurityWrites } from "./AdminSecurity.ts"
import { connectionsReads, connectionsWrites } from "./Connections.ts"
import { memesReads, memesWrites } from "./FavoriteMemes.ts"
import { guildReads } from "./Guilds.ts"
import { notesReads, notesWrites } from "./Notes.ts"
import { pushReads, pushWrites } from "./PushSubscriptions.ts"
import { readyReads } from "./Ready.ts"
import { relationshipsReads, relationshipsWrites } from "./Relationships.ts"
import { savedReads, savedWrites } from "./SavedMessages.ts"
import { scheduledReads, scheduledWrites } from "./ScheduledMessages.ts"
import { settingsReads, settingsWrites } from "./Settings.ts"

/**
 * Every write and read a user's actor runs. A capability adds its definitions
 * in a file of its own and spreads them in here; nothing else changes.
 */
export const writes = [
  ...accountWrites,
  ...settingsWrites,
  ...notesWrites,
  ...savedWrites,
  ...pushWrites,
  ...scheduledWrites,
  ...relationshipsWrites,
  ...connectionsWrites,
  ...adminWrites,
  ...adminProfileWrites,
  ...adminSecurityWrites,
  ...memesWrites
] as const

export const reads = [
  ...accountReads,
  ...settingsReads,
  ...notesReads,
  ...guildReads,
  ...readyReads,
  ...savedReads,
  ...pushReads,
  ...scheduledReads,
  ...relationshipsReads,
  ...connectionsReads,
  ...memesReads
] as const

export const { WriteCommand, ReadQuery, writeOf, readOf, isListedWrite, unlisted, travellingCommand, travellingQuery } =
  registryOf("shards/user/operations/index.ts", writes, reads)
