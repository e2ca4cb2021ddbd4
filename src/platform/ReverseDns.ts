import { Context, Duration, Effect, Layer } from "effect"
import { dnsResolver } from "./DnsResolver.ts"
import { RecentAnswers } from "./RecentAnswers.ts"

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
      const resolver = yield* dnsResolver({ timeoutMillis: QUERY_TIMEOUT_MS, tries: TRIES })
      // A miss may be a server that was down: asked again sooner than a name.
      const cache = new RecentAnswers<string>(CACHE_SIZE, CACHE_TTL_MS, CACHE_TTL_MS / 10)

      const lookup = (address: string): Effect.Effect<string | null> =>
        Effect.suspend(() => {
          const cached = cache.get(address)
          if (cached !== "unknown") return Effect.succeed(cached ?? null)
          return Effect.tryPromise(() => resolver.reverse(address)).pipe(
            Effect.map((names) => names[0]),
            Effect.timeoutOrElse({ duration: LOOKUP_CAP, orElse: () => Effect.succeed(undefined) }),
            Effect.orElseSucceed(() => undefined),
            Effect.map((name) => cache.keep(address, name) ?? null)
          )
        })

      return ReverseDns.of({ lookup })
    })
  )
}
