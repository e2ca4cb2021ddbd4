import { callReads, callWrites } from "./Calls.ts"
import { channelReads, channelWrites } from "./Channel.ts"
import { messageReads, messageWrites } from "./Messages.ts"
import { adminMessageWrites } from "./AdminMessages.ts"
import { registryOf } from "../../actors/Registry.ts"

/**
 * Every write and read a DM channel's actor runs. A capability adds its
 * definitions in a file of its own and spreads them in here; nothing else changes.
 */
export const writes = [...channelWrites, ...messageWrites, ...callWrites, ...adminMessageWrites] as const

export const reads = [...channelReads, ...messageReads, ...callReads] as const

export const { WriteCommand, ReadQuery, writeOf, readOf, isListedWrite, unlisted, travellingCommand, travellingQuery } =
  registryOf("shards/dm/operations/index.ts", writes, reads)
