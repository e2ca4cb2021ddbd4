import { snowflakeTime } from "../../../src/platform/Snowflake.ts"
import type { GuildMember } from "./GuildMember.ts"
import type { SharedMap } from "../SharedMap.ts"
import { EMPTY_PROFILE, type MemberProfile } from "./MemberProfile.ts"
import type { GuildState } from "../State.ts"

/**
 * What every search needs of a member (lower-cased names, times as numbers),
 * computed once per member and kept until the member changes.
 */
export interface Indexed {
  readonly member: GuildMember
  readonly profile: MemberProfile
  readonly username: string
  readonly globalName: string
  readonly nick: string
  /** Unix seconds. */
  readonly joinedAt: number
  readonly createdAt: number
  readonly isBot: boolean
}

/**
 * The members in join order (oldest first), and for every one- and two-letter
 * piece of their names, the positions of the members whose names hold it
 * (ascending, each member once). A query of one or two letters is one lookup;
 * a longer one starts from its rarest two-letter piece and checks only those
 * members' names.
 */
export interface SearchIndex {
  readonly entries: ReadonlyArray<Indexed>
  /** Packed once built: half the memory of arrays of numbers, which was a third of a big guild's actor. */
  readonly grams: ReadonlyMap<string, Int32Array>
  /** The candidates of the latest queries of three letters or more, oldest first (MemberSearch.ts). */
  readonly found: Map<string, Int32Array>
  /** What it was made from: a state with other members or profiles needs another index. */
  readonly members: GuildState["members"]
  readonly profiles: GuildState["memberProfiles"]
}

/**
 * A guild's latest search index. Not state but a cache: one box, made where
 * the state is (loaded or created) and shared by every state made from it, so
 * that a search after a write finds the index of the states before.
 */
export interface LatestSearchIndex {
  index: SearchIndex | undefined
}

export const noSearchIndex = (): LatestSearchIndex => ({ index: undefined })

export const NONE: Int32Array = new Int32Array(0)

const indexed = (member: GuildMember, profile: MemberProfile): Indexed => ({
  member,
  profile,
  username: member.user.username.toLowerCase(),
  globalName: (member.user.global_name ?? "").toLowerCase(),
  nick: (member.nick ?? "").toLowerCase(),
  joinedAt: Math.floor(Date.parse(member.joined_at) / 1000),
  createdAt: Math.floor(snowflakeTime(member.user.id) / 1000),
  isBot: member.user.bot === true
})

const byJoin = (a: Indexed, b: Indexed) =>
  a.joinedAt - b.joinedAt || (BigInt(a.member.user.id) < BigInt(b.member.user.id) ? -1 : 1)

/** Each one- and two-letter piece of a member's names (a piece may come more than once). */
const forEachGram = (e: Indexed, visit: (gram: string) => void): void => {
  for (const name of [e.username, e.globalName, e.nick]) {
    for (let i = 0; i < name.length; i++) {
      visit(name.slice(i, i + 1))
      if (i + 2 <= name.length) visit(name.slice(i, i + 2))
    }
  }
}

const gramsOf = (e: Indexed): Set<string> => {
  const grams = new Set<string>()
  forEachGram(e, (gram) => grams.add(gram))
  return grams
}

const buildIndex = (state: GuildState): SearchIndex => {
  const entries: Array<Indexed> = []
  for (const member of state.members.values()) {
    entries.push(indexed(member, state.memberProfiles.get(member.user.id) ?? EMPTY_PROFILE))
  }
  entries.sort(byJoin)
  const grams = new Map<string, Array<number>>()
  for (const [position, e] of entries.entries()) {
    forEachGram(e, (gram) => {
      const postings = grams.get(gram)
      if (postings === undefined) grams.set(gram, [position])
      else if (postings[postings.length - 1] !== position) postings.push(position)
    })
  }
  const packed = new Map<string, Int32Array>()
  for (const [gram, postings] of grams) packed.set(gram, Int32Array.from(postings))
  return { entries, grams: packed, found: new Map(), members: state.members, profiles: state.memberProfiles }
}

/** The first of `length` places, in order, for which `before` no longer holds (a binary search). */
const firstNotBefore = (length: number, before: (place: number) => boolean): number => {
  let low = 0
  let high = length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (before(middle)) low = middle + 1
    else high = middle
  }
  return low
}

/** Where `position` is, or would go, in ascending `postings`. */
const placeOf = (postings: Int32Array, position: number): number =>
  firstNotBefore(postings.length, (place) => (postings[place] ?? 0) < position)

const withPosition = (postings: Int32Array, position: number): Int32Array => {
  const at = placeOf(postings, position)
  const next = new Int32Array(postings.length + 1)
  next.set(postings.subarray(0, at))
  next[at] = position
  next.set(postings.subarray(at), at + 1)
  return next
}

const withoutPosition = (postings: Int32Array, position: number): Int32Array => {
  const at = placeOf(postings, position)
  if (postings[at] !== position) return postings
  const next = new Int32Array(postings.length - 1)
  next.set(postings.subarray(0, at))
  next.set(postings.subarray(at + 1), at)
  return next
}

/** Past this many changed members, building afresh costs less than patching. */
const MAX_PATCHED = 1024

/**
 * The keys whose values differ between two maps, found in one walk of both
 * (no key hashed); undefined when their keys differ or come in another order.
 */
const changedKeys = <V>(before: SharedMap<string, V>, after: SharedMap<string, V>): Array<string> | undefined => {
  if (before === after) return []
  if (before.size !== after.size) return undefined
  const changed: Array<string> = []
  const others = after[Symbol.iterator]()
  for (const [key, value] of before) {
    const other = others.next()
    if (other.done === true || other.value[0] !== key) return undefined
    if (other.value[1] !== value) changed.push(key)
  }
  return changed
}

/** The place of `member` in join order, if `member` is in `entries`. */
const placeOfMember = (entries: ReadonlyArray<Indexed>, member: GuildMember): number | undefined => {
  const probe = indexed(member, EMPTY_PROFILE)
  const place = firstNotBefore(entries.length, (at) => {
    const e = entries[at]
    return e !== undefined && byJoin(e, probe) < 0
  })
  return entries[place]?.member === member ? place : undefined
}

/**
 * The places of the members that differ between the index and `state`, each
 * with its new entry. Undefined when a member came or went, or so many changed
 * that building afresh costs less.
 */
const changedPlaces = (previous: SearchIndex, state: GuildState): Array<readonly [number, Indexed]> | undefined => {
  const memberIds = changedKeys(previous.members, state.members)
  const profileIds = changedKeys(previous.profiles, state.memberProfiles)
  // A profile added or removed changes the profiles' keys: rare enough to build afresh.
  if (memberIds === undefined || profileIds === undefined) return undefined
  const changed: Array<readonly [number, Indexed]> = []
  for (const id of new Set([...memberIds, ...profileIds])) {
    const before = previous.members.get(id)
    const member = state.members.get(id)
    const place = before === undefined ? undefined : placeOfMember(previous.entries, before)
    if (member === undefined || place === undefined || changed.length === MAX_PATCHED) return undefined
    const after = indexed(member, state.memberProfiles.get(id) ?? EMPTY_PROFILE)
    if (after.joinedAt !== previous.entries[place]?.joinedAt) return undefined
    changed.push([place, after])
  }
  return changed
}

/**
 * `previous` made to fit `state` when the same members are there, at the same
 * places in join order: the changed members' entries and the postings of the
 * pieces their names gained or lost are replaced, the rest is shared. Undefined
 * when it cannot be (changedPlaces): the index is built afresh.
 */
const patched = (previous: SearchIndex, state: GuildState): SearchIndex | undefined => {
  const changed = changedPlaces(previous, state)
  if (changed === undefined) return undefined
  const entries = previous.entries.slice()
  const grams = new Map(previous.grams)
  for (const [position, after] of changed) {
    const lost = gramsOf(entries[position] ?? after)
    const gained = gramsOf(after)
    for (const gram of lost) {
      if (gained.has(gram)) continue
      const postings = withoutPosition(grams.get(gram) ?? NONE, position)
      if (postings.length === 0) grams.delete(gram)
      else grams.set(gram, postings)
    }
    for (const gram of gained) if (!lost.has(gram)) grams.set(gram, withPosition(grams.get(gram) ?? NONE, position))
    entries[position] = after
  }
  return { entries, grams, found: new Map(), members: state.members, profiles: state.memberProfiles }
}

/**
 * The state's search index: the latest one if it was made from the same
 * members and profiles (a message or a channel change leaves both), else the
 * latest one patched for the members that changed (a nickname, a role), else
 * a new one (100,000 members: 0.3 to 0.4 s here).
 */
export const searchIndex = (state: GuildState): SearchIndex => {
  const latest = state.latestSearchIndex.index
  if (latest !== undefined && latest.members === state.members && latest.profiles === state.memberProfiles) return latest
  const index = (latest === undefined ? undefined : patched(latest, state)) ?? buildIndex(state)
  state.latestSearchIndex.index = index
  return index
}
