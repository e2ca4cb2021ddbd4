import { Schema } from "effect"
import { membersReads, membersWrites } from "./Members.ts"
import { settingsReads, settingsWrites } from "./Settings.ts"

/**
 * Every write and read a guild actor runs. A sub-domain adds its definitions
 * in a file of its own and spreads them in here; nothing else changes.
 */
export const writes = [
  ...settingsWrites,
  ...membersWrites
] as const

export const reads = [
  ...settingsReads,
  ...membersReads
] as const

/** Any write command, as it travels to the actor. */
export const WriteCommand = Schema.Union(writes.map((w) => w.command))

/** Any read query, as it travels to the actor. */
export const ReadQuery = Schema.Union(reads.map((r) => r.query))

const writesByTag: ReadonlyMap<string, (typeof writes)[number]> = new Map(writes.map((w) => [w.tag, w]))
const readsByTag: ReadonlyMap<string, (typeof reads)[number]> = new Map(reads.map((r) => [r.tag, r]))

export const writeOf = (tag: string) => writesByTag.get(tag)
export const readOf = (tag: string) => readsByTag.get(tag)
