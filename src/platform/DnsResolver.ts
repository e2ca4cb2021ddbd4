import { Effect, Option } from "effect"
import { Resolver } from "node:dns/promises"
import { AppConfig } from "./Config.ts"

/**
 * A resolver asking DNS_SERVER (unset: the system's resolvers), with each
 * query's timeout and tries, cancelled with the scope.
 */
export const dnsResolver = (options: { readonly timeoutMillis: number; readonly tries: number }) =>
  Effect.gen(function*() {
    const { dnsServer } = yield* AppConfig
    const resolver = new Resolver({ timeout: options.timeoutMillis, tries: options.tries })
    if (Option.isSome(dnsServer)) resolver.setServers([dnsServer.value])
    yield* Effect.addFinalizer(() => Effect.sync(() => resolver.cancel()))
    return resolver
  })
