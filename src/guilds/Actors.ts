import { Context, Effect, Layer } from "effect"
import { AppConfig } from "../Config.ts"
import { Guild } from "../../shards/guild/Protocol.ts"
import { User } from "../../shards/user/Protocol.ts"
import { actorUnavailable, BadRequest, Forbidden, NotFound, Unavailable } from "../http/Errors.ts"

type DomainError = BadRequest | Forbidden | NotFound

const isDomainError = (e: unknown): e is DomainError =>
  e instanceof BadRequest || e instanceof Forbidden || e instanceof NotFound

/**
 * The HTTP side's handle on the actors. Every call is bounded: an actor on a
 * dead runner blocks until its shard moves, and the caller gets 503 (outcome
 * unknown, safe to retry with the same operation) rather than a hung request.
 */
type ClientOf<T> = T extends Effect.Effect<infer Make, infer _E, infer _R> ? Make : never

export class Actors extends Context.Service<Actors, {
  readonly guild: ClientOf<typeof Guild.client>
  readonly user: ClientOf<typeof User.client>
  readonly bounded: <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.Effect<A, DomainError | Unavailable, R>
}>()("guildhall/Actors") {
  static readonly layer = Layer.effect(
    Actors,
    Effect.gen(function*() {
      const { actorCallTimeoutMillis } = yield* AppConfig
      const guild = yield* Guild.client
      const user = yield* User.client
      const bounded = <A, E, R>(call: Effect.Effect<A, E, R>): Effect.Effect<A, DomainError | Unavailable, R> =>
        call.pipe(
          Effect.timeoutOrElse({ duration: actorCallTimeoutMillis, orElse: () => Effect.fail(actorUnavailable()) }),
          Effect.catch((e: E | Unavailable) =>
            isDomainError(e) || e instanceof Unavailable
              ? Effect.fail(e)
              : Effect.andThen(Effect.logWarning("actor call failed", e), Effect.fail(actorUnavailable()))
          )
        )
      return Actors.of({ guild, user, bounded })
    })
  )
}
