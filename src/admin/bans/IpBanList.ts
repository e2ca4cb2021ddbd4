import { Context, Effect, Layer, Semaphore } from "effect"
import { AppConfig } from "../../platform/Config.ts"
import { networkSet, type NetworkSet, parseAddress, parseNetwork } from "../../platform/IpAddress.ts"
import { rereadOnNotice } from "../../platform/RedisRereads.ts"
import { BansRepo } from "./Repo.ts"

/** Where the API processes of a cluster hear that the banned ranges changed. */
export const ipBansChannel = (prefix: string) => `${prefix}bans:ip:changed`

/**
 * The banned addresses and ranges, held in memory by every API process so
 * that the check on every request costs no query (`banned`). Postgres is the
 * truth: a change is written there, then `changed` rereads it here and, in
 * cluster mode, tells every other API process to reread it too.
 */
export class IpBanList extends Context.Service<IpBanList, {
  /** Whether a banned range holds `address` (any form `parseAddress` reads; not an address: false). */
  readonly banned: (address: string) => boolean
  /** Rereads the list here, and has every other process reread it; returns once this process has. */
  readonly changed: Effect.Effect<void>
}>()("guildhall/IpBanList") {
  /** One process (embedded mode): rereading here is enough. */
  static readonly layerLocal = Layer.effect(
    IpBanList,
    Effect.gen(function*() {
      const list = yield* makeList
      return IpBanList.of({ banned: list.banned, changed: list.reread })
    })
  ).pipe(Layer.provide(BansRepo.layer))

  /** Cluster mode: a change is announced over Redis, and every process rereads (RedisRereads.ts). */
  static readonly layerRedis = Layer.effect(
    IpBanList,
    Effect.gen(function*() {
      const list = yield* makeList
      const channel = ipBansChannel((yield* AppConfig).redisKeyPrefix)
      const { announce } = yield* rereadOnNotice(channel, list.reread, "bans: the banned addresses")
      return IpBanList.of({ banned: list.banned, changed: Effect.andThen(list.reread, announce) })
    })
  ).pipe(Layer.provide(BansRepo.layer))
}

/** The list, read once now; rereads one at a time, so an older read never replaces a newer one. */
const makeList = Effect.gen(function*() {
  const repo = yield* BansRepo
  const one = yield* Semaphore.make(1)
  let current: NetworkSet = networkSet([])
  const reread = one.withPermits(1)(Effect.map(repo.ips(), (ips) => {
    current = networkSet(ips.flatMap((ip) => parseNetwork(ip) ?? []))
  })).pipe(Effect.withSpan("IpBanList.reread"))
  yield* reread
  const banned = (address: string): boolean => {
    if (current.size === 0) return false
    const parsed = parseAddress(address)
    return parsed !== undefined && current.holds(parsed)
  }
  return { banned, reread }
})
