import { Context, Effect, Layer } from "effect"
import { AppConfig } from "../Config.ts"
import type { GuildRead } from "../../shards/guild/Reads.ts"
import { Guild } from "../../shards/guild/Protocol.ts"
import { LiveActors } from "../../shards/LiveActors.ts"
import { User } from "../../shards/user/Protocol.ts"
import { actorUnavailable, BadRequest, Forbidden, NotFound, Unavailable } from "../http/Errors.ts"

type DomainError = BadRequest | Forbidden | NotFound

const isDomainError = (e: unknown): e is DomainError =>
  e instanceof BadRequest || e instanceof Forbidden || e instanceof NotFound

type ClientOf<T> = T extends Effect.Effect<infer Make, infer _E, infer _R> ? Make : never
type GuildClient = ReturnType<ClientOf<typeof Guild.client>>

/**
 * The HTTP side's handle on the actors. Every call is bounded: an actor on a
 * dead runner blocks until its shard moves, and the caller gets 503 (outcome
 * unknown, safe to retry with the same operation) rather than a hung request.
 *
 * Reads of a guild whose actor lives in this process (the embedded default)
 * are applied to the state it published after its last committed change:
 * what its own read handlers would see, without the round trip through its
 * mailbox, which costs more than the rest of the request. Reads of a guild not
 * loaded here go to its actor, wherever it lives, which loads it.
 */
export class Actors extends Context.Service<Actors, {
  readonly guild: ClientOf<typeof Guild.client>
  readonly user: ClientOf<typeof User.client>
  readonly bounded: <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.Effect<A, DomainError | Unavailable, R>
  /** `read` of the guild: here when its actor lives here, else `remote` asks the actor. */
  readonly readGuild: <A, E>(
    guildId: string,
    read: GuildRead<A>,
    remote: (guild: GuildClient) => Effect.Effect<A, E>
  ) => Effect.Effect<A, DomainError | Unavailable>
}>()("guildhall/Actors") {
  static readonly layer = Layer.effect(
    Actors,
    Effect.gen(function*() {
      const { actorCallTimeoutMillis, actorLocalReads } = yield* AppConfig
      const live = yield* LiveActors
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
      const readGuild = <A, E>(guildId: string, read: GuildRead<A>, remote: (guild: GuildClient) => Effect.Effect<A, E>) => {
        const published = actorLocalReads ? live.guilds.get(guildId) : undefined
        return published === undefined ? bounded(remote(guild(guildId))) : read(published.state)
      }
      return Actors.of({ guild, user, bounded, readGuild })
    })
  )
}
