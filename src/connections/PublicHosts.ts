import { Effect } from "effect"
import { lookup } from "node:dns/promises"
import { networkSet, parseAddress, parseNetwork } from "../platform/IpAddress.ts"

/** Addresses no public instance has: private, loopback, link-local, shared, benchmark, multicast and reserved ranges. */
const NOT_PUBLIC = networkSet([
  "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
  "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/3", "::/127", "fc00::/7", "fe80::/10", "ff00::/8"
].flatMap((range) => parseNetwork(range) ?? []))

export const isPublicAddress = (address: string): boolean => {
  const parsed = parseAddress(address)
  return parsed !== undefined && !NOT_PUBLIC.holds(parsed)
}

/**
 * Whether every address `host` resolves to is public: a host a user named is
 * asked over HTTP only then, so a handle cannot point the server at a machine
 * of its own network. (A name that changes its answer between this lookup and
 * the request's own is not caught; the answer is only ever read as a yes or no.)
 */
export const resolvesPublicly = (host: string): Effect.Effect<boolean> =>
  Effect.tryPromise(() => lookup(host, { all: true })).pipe(
    Effect.map((addresses) => addresses.length > 0 && addresses.every((a) => isPublicAddress(a.address))),
    Effect.orElseSucceed(() => false)
  )
