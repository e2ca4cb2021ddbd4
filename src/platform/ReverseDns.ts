import { Context, Duration, Effect, Layer, Option } from "effect"
import { Resolver } from "node:dns/promises"
import { AppConfig } from "./Config.ts"

/** One lookup's bound: the resolver's own timeout and tries, and a cap on the whole. */
const QUERY_TIMEOUT_MS = 750
const TRIES = 2
const LOOKUP_CAP = Duration.millis(QUERY_TIMEOUT_MS * TRIES + 250)
/** Answers (names and failures) kept this long, at most `CACHE_SIZE` of them. */
const CACHE_TTL_MS = 10 * 60 * 1000
const CACHE_SIZE = 10_000

/**
 * The host name of an address (its PTR record), for operators reading lists of
 * addresses. Best effort: an address without a name, a server that does not
 * answer in time, or anything that is not an address all answer null.
 * DNS_SERVER names the server; unset, the system's resolvers.
 */
export class ReverseDns extends Context.Service<ReverseDns, {
  readonly lookup: (address: string) => Effect.Effect<string | null>
}>()("guildhall/ReverseDns") {
  static readonly layer = Layer.effect(
    ReverseDns,
    Effect.gen(function*() {
      const { dnsServer } = yield* AppConfig
      const resolver = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: TRIES })
      if (Option.isSome(dnsServer)) resolver.setServers([dnsServer.value])
      yield* Effect.addFinalizer(() => Effect.sync(() => resolver.cancel()))
      const cache = new Map<string, { readonly name: string | null; readonly until: number }>()

      const remember = (address: string, name: string | null) => {
        if (cache.size >= CACHE_SIZE) {
          const oldest = cache.keys().next()
          if (oldest.done !== true) cache.delete(oldest.value)
        }
        // A miss may be a server that was down: asked again sooner than a name.
        cache.set(address, { name, until: Date.now() + (name === null ? CACHE_TTL_MS / 10 : CACHE_TTL_MS) })
        return name
      }

      const lookup = (address: string): Effect.Effect<string | null> =>
        Effect.suspend(() => {
          const cached = cache.get(address)
          if (cached !== undefined && cached.until > Date.now()) return Effect.succeed(cached.name)
          return Effect.tryPromise(() => resolver.reverse(address)).pipe(
            Effect.map((names) => names[0] ?? null),
            Effect.timeoutOrElse({ duration: LOOKUP_CAP, orElse: () => Effect.succeed(null) }),
            Effect.orElseSucceed(() => null),
            Effect.map((name) => remember(address, name))
          )
        })

      return ReverseDns.of({ lookup })
    })
  )
}
