import { Context, Duration, Effect, Layer } from "effect"
import { dnsResolver } from "../platform/DnsResolver.ts"

const QUERY_TIMEOUT_MS = 2000
const TRIES = 2
const LOOKUP_CAP = Duration.millis(QUERY_TIMEOUT_MS * TRIES + 500)

/** Where a domain's proof may be published: the name of a record under the domain, besides the domain itself. */
export const PROOF_LABEL = "_guildhall"

/**
 * Whether a domain publishes a verification string: a DNS TXT record whose
 * text (its strings joined, as a long record is split) is exactly the
 * string, at `_guildhall.<domain>` or at the domain itself. A name without
 * such a record, a server that fails or does not answer in time: not found.
 * DNS_SERVER names the server; unset, the system's resolvers.
 */
export class DomainProof extends Context.Service<DomainProof, {
  readonly published: (domain: string, proof: string) => Effect.Effect<boolean>
}>()("guildhall/DomainProof") {
  static readonly layer = Layer.effect(
    DomainProof,
    Effect.gen(function*() {
      const resolver = yield* dnsResolver({ timeoutMillis: QUERY_TIMEOUT_MS, tries: TRIES })

      const texts = (name: string): Effect.Effect<ReadonlyArray<string>> =>
        Effect.tryPromise(() => resolver.resolveTxt(name)).pipe(
          Effect.map((records) => records.map((chunks) => chunks.join(""))),
          Effect.timeoutOrElse({ duration: LOOKUP_CAP, orElse: () => Effect.succeed([]) }),
          Effect.orElseSucceed(() => [])
        )

      const published = Effect.fn("DomainProof.published")(function*(domain: string, proof: string) {
        const found = yield* Effect.forEach([`${PROOF_LABEL}.${domain}`, domain], texts, { concurrency: 2 })
        return found.some((records) => records.some((text) => text.trim() === proof))
      })

      return DomainProof.of({ published })
    })
  )
}
