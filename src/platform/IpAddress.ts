import { isIPv4, isIPv6 } from "node:net"

/**
 * IP addresses and CIDR ranges as numbers, so that a range holds an address
 * by arithmetic rather than by comparing text. An IPv4-mapped IPv6 address
 * (`::ffff:1.2.3.4`, what a dual-stack socket reports for an IPv4 client) is
 * the IPv4 address it maps: a ban on 1.2.3.4 holds it too.
 */
export type Family = 4 | 6

/** A range; an address is the range of one (`prefix` = 32 or 128). `network` has no host bits set. */
export interface Network {
  readonly family: Family
  readonly network: bigint
  readonly prefix: number
}

const BITS: Record<Family, number> = { 4: 32, 6: 128 }
const MAPPED = 0xffffn << 32n

const parseV4 = (text: string): bigint =>
  text.split(".").reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n)

/** Eight 16-bit groups; `::` stands for as many zero groups as are missing; an IPv4 tail is two groups. */
const parseV6 = (text: string): bigint => {
  const lastColon = text.lastIndexOf(":")
  const tail = text.slice(lastColon + 1)
  const withoutV4 = tail.includes(".")
    ? `${text.slice(0, lastColon + 1)}${(parseV4(tail) >> 16n).toString(16)}:${(parseV4(tail) & 0xffffn).toString(16)}`
    : text
  const [head = "", rest] = withoutV4.split("::")
  const groups = (part: string) => (part === "" ? [] : part.split(":"))
  const left = groups(head)
  const right = rest === undefined ? [] : groups(rest)
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
  return all.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n)
}

/** An address as the server meets it: brackets and an IPv6 zone (`%eth0`) are dropped. */
export const parseAddress = (raw: string): Network | undefined => {
  let text = raw.trim()
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1)
  const zone = text.indexOf("%")
  if (zone !== -1) text = text.slice(0, zone)
  if (isIPv4(text)) return { family: 4, network: parseV4(text), prefix: 32 }
  if (!isIPv6(text)) return undefined
  const value = parseV6(text)
  return (value >> 32n) === (MAPPED >> 32n)
    ? { family: 4, network: value & 0xffffffffn, prefix: 32 }
    : { family: 6, network: value, prefix: 128 }
}

const mask = (family: Family, prefix: number): bigint => {
  const bits = BigInt(BITS[family])
  return ((1n << bits) - 1n) ^ ((1n << (bits - BigInt(prefix))) - 1n)
}

/**
 * `address` or `address/prefix`; host bits past the prefix are cleared
 * (`10.1.2.3/8` is `10.0.0.0/8`). A mapped range of /96 or more is the IPv4
 * range it maps. Undefined for anything else.
 */
export const parseNetwork = (raw: string): Network | undefined => {
  const slash = raw.indexOf("/")
  if (slash === -1) return parseAddress(raw)
  const address = parseAddress(raw.slice(0, slash))
  const prefixText = raw.slice(slash + 1).trim()
  if (address === undefined || !/^\d{1,3}$/.test(prefixText)) return undefined
  const written = Number(prefixText)
  // The address was read as IPv4 when mapped; its prefix was written for 128 bits.
  const wasMapped = address.family === 4 && raw.includes(":")
  const prefix = wasMapped ? written - 96 : written
  if (prefix < 0 || prefix > BITS[address.family]) return undefined
  return { family: address.family, network: address.network & mask(address.family, prefix), prefix }
}

const formatV4 = (value: bigint): string =>
  [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".")

/** RFC 5952: lower case, no leading zeros, the longest run of two or more zero groups as `::`. */
const formatV6 = (value: bigint): string => {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn))
  let bestStart = -1
  let bestLength = 1
  for (let i = 0; i < 8;) {
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLength) {
      bestStart = i
      bestLength = j - i
    }
    i = j === i ? i + 1 : j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart === -1) return hex.join(":")
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`
}

/** The canonical text: a lone address bare, a range as `network/prefix`. */
export const formatNetwork = (n: Network): string => {
  const address = n.family === 4 ? formatV4(n.network) : formatV6(n.network)
  return n.prefix === BITS[n.family] ? address : `${address}/${n.prefix}`
}

/** An address's canonical text, or undefined when it is none. */
export const normalizeAddress = (raw: string): string | undefined => {
  const parsed = parseAddress(raw)
  return parsed === undefined ? undefined : formatNetwork(parsed)
}

/**
 * A set of ranges asked "does one hold this address?" on every request: per
 * family and prefix length, the set of networks shifted down to that length.
 * A lookup costs one set probe per distinct prefix length in use (at most 33
 * or 129), whatever the number of ranges.
 */
export interface NetworkSet {
  readonly holds: (address: Network) => boolean
  readonly size: number
}

export const networkSet = (networks: Iterable<Network>): NetworkSet => {
  const byFamily: Record<Family, Map<number, Set<bigint>>> = { 4: new Map(), 6: new Map() }
  let size = 0
  for (const n of networks) {
    const byPrefix = byFamily[n.family]
    const shift = BigInt(BITS[n.family] - n.prefix)
    let set = byPrefix.get(n.prefix)
    if (set === undefined) {
      set = new Set()
      byPrefix.set(n.prefix, set)
    }
    const key = n.network >> shift
    if (!set.has(key)) size++
    set.add(key)
  }
  const holds = (address: Network): boolean => {
    for (const [prefix, set] of byFamily[address.family]) {
      if (set.has(address.network >> BigInt(BITS[address.family] - prefix))) return true
    }
    return false
  }
  return { holds, size }
}

/**
 * The client of a request: its peer, or, when the peer is a trusted proxy,
 * the right-most `X-Forwarded-For` entry that is not one (each proxy appends
 * the address it saw, so entries to the left of it are whatever the client
 * wrote and are never believed). An entry that is not an address ends the
 * walk at the last trusted hop. Canonical text, or undefined without a peer.
 */
export const clientAddress = (peer: string | undefined, forwardedFor: string | undefined, trusted: NetworkSet): string | undefined => {
  if (peer === undefined) return undefined
  // The common case, on every request: an IPv4 socket's address is already canonical.
  if ((forwardedFor === undefined || trusted.size === 0) && isIPv4(peer)) return peer
  const socket = parseAddress(peer)
  if (socket === undefined) return undefined
  let client = socket
  if (forwardedFor !== undefined && trusted.size > 0 && trusted.holds(socket)) {
    const hops = forwardedFor.split(",")
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parseAddress(hops[i] ?? "")
      if (hop === undefined) break
      client = hop
      if (!trusted.holds(hop)) break
    }
  }
  return formatNetwork(client)
}
