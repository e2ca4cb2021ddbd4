import { Schema } from "effect"
import { callReads, callWrites } from "./Calls.ts"
import { channelReads, channelWrites } from "./Channel.ts"
import { messageReads, messageWrites } from "./Messages.ts"

/**
 * Every write and read a DM channel's actor runs. A capability adds its
 * definitions in a file of its own and spreads them in here; nothing else changes.
 */
export const writes = [...channelWrites, ...messageWrites, ...callWrites] as const

export const reads = [...channelReads, ...messageReads, ...callReads] as const

/** Any write command, as it travels to the actor. */
export const WriteCommand = Schema.Union(writes.map((w) => w.command))

/** Any read query, as it travels to the actor. */
export const ReadQuery = Schema.Union(reads.map((r) => r.query))

const writesByTag: ReadonlyMap<string, (typeof writes)[number]> = new Map(writes.map((w) => [w.tag, w]))
const readsByTag: ReadonlyMap<string, (typeof reads)[number]> = new Map(reads.map((r) => [r.tag, r]))

export const writeOf = (tag: string) => writesByTag.get(tag)
export const readOf = (tag: string) => readsByTag.get(tag)

const registeredWrites: ReadonlySet<{ readonly tag: string }> = new Set(writes)
const registeredReads: ReadonlySet<{ readonly tag: string }> = new Set(reads)

/** Whether `definition` is listed above (an unlisted one could not cross to the actor). */
export const isListedWrite = (definition: { readonly tag: string }): boolean => registeredWrites.has(definition)
export const isListedRead = (definition: { readonly tag: string }): boolean => registeredReads.has(definition)
