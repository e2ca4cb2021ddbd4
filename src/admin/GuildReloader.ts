import { Context, Effect, Layer } from "effect"
import { LiveActors } from "../../shards/LiveActors.ts"
import { controlChannel } from "../../shards/Control.ts"
import { ClusterStats } from "../../shards/Stats.ts"
import { GuildRepo } from "../../shards/guild/Repo.ts"
import { AppConfig } from "../platform/Config.ts"
import { Actors } from "../guilds/Actors.ts"
import { RedisClient } from "../platform/Redis.ts"
import { CarriedId, type GuildId } from "../model/Ids.ts"
import { serviceUnavailable, type Unavailable } from "../model/Errors.ts"

const BATCH = 20

/** ioredis keeps a command while it reconnects: an operator is told Redis is away rather than kept waiting. */
const PUBLISH_TIMEOUT = "2 seconds"

/**
 * Reloads guild actors in small batches, in the background, so the caller is
 * answered at once. The ids are guilds' ids as our storage lists them (an
 * account's memberships) or as a request decoded them.
 */
export const reloadInBatches = (actors: Actors["Service"], guildIds: ReadonlyArray<string>) =>
  Effect.forEach(
    guildIds,
    (id) => actors.bounded(actors.guild(CarriedId.GuildId.make(id)).Reload()).pipe(Effect.ignore),
    { concurrency: BATCH, discard: true }
  ).pipe(Effect.forkDetach, Effect.asVoid)

/** Reloads those of the listed guilds that exist (an id of none would start an actor for nothing); how many. */
const reloadListed = (actors: Actors["Service"], guilds: GuildRepo["Service"], guildIds: ReadonlyArray<GuildId>) =>
  Effect.flatMap(guilds.existing(guildIds), (ids) => Effect.as(reloadInBatches(actors, ids), ids.length))

/**
 * `reload-all`: the listed guilds, or every live guild actor. Only the process
 * holding an actor knows it is live, so with an empty list each process is
 * asked to reload its own (directly when embedded, over Redis otherwise).
 */
export class GuildReloader extends Context.Service<GuildReloader, {
  /** Fails with Unavailable when the processes cannot be asked (Redis away). */
  readonly reloadAll: (guildIds: ReadonlyArray<GuildId>) => Effect.Effect<number, Unavailable>
}>()("guildhall/GuildReloader") {
  static readonly layerLocal = Layer.effect(
    GuildReloader,
    Effect.gen(function*() {
      const actors = yield* Actors
      const guilds = yield* GuildRepo
      const live = yield* LiveActors
      return {
        reloadAll: Effect.fn("GuildReloader.reloadAll")((guildIds) => {
          if (guildIds.length > 0) return reloadListed(actors, guilds, guildIds)
          const ids = [...live.guilds.keys()]
          return Effect.as(reloadInBatches(actors, ids), ids.length)
        })
      }
    })
  )

  static readonly layerRedis = Layer.effect(
    GuildReloader,
    Effect.gen(function*() {
      const actors = yield* Actors
      const guilds = yield* GuildRepo
      const redis = yield* RedisClient
      const stats = yield* ClusterStats
      const { redisKeyPrefix } = yield* AppConfig
      return {
        reloadAll: Effect.fn("GuildReloader.reloadAll")(function*(guildIds) {
          if (guildIds.length > 0) return yield* reloadListed(actors, guilds, guildIds)
          const { processes } = yield* stats.all
          yield* Effect.tryPromise(() => redis.publish(controlChannel(redisKeyPrefix), "reload-all")).pipe(
            Effect.timeout(PUBLISH_TIMEOUT),
            Effect.mapError(() => serviceUnavailable("Redis could not be reached: no guild was reloaded; try again"))
          )
          return processes.reduce((n, p) => n + p.guilds, 0)
        })
      }
    })
  )
}
