import { Layer } from "effect"
import type { Settings } from "../src/platform/Config.ts"
import { Database } from "../src/platform/Database.ts"
import { Limits } from "../src/platform/Limits.ts"
import { Migrations } from "../src/platform/Migrations.ts"
import { RedisClient } from "../src/platform/Redis.ts"
import { Snowflakes } from "../src/platform/Snowflake.ts"
import { embeddedSharding } from "./Cluster.ts"
import { DmChannelActor } from "./dm/Actor.ts"
import { DmRepo } from "./dm/Repo.ts"
import { GuildActor } from "./guild/Actor.ts"
import { GuildEvents } from "./guild/Events.ts"
import { GuildRepo } from "./guild/Repo.ts"
import { LiveActors } from "./LiveActors.ts"
import { UserActor } from "./user/Actor.ts"
import { RelationshipSweep } from "./user/RelationshipSweep.ts"
import { UserRepo } from "./user/Repo.ts"
import { UserEvents } from "./UserEvents.ts"

/** Postgres with the schema applied. */
export const databaseLayer = Layer.provideMerge(Migrations.layer, Database.layer)

/** Postgres with the schema applied, Redis, and a snowflake node id leased in Redis. */
export const clusterPlatformLayer = Layer.mergeAll(
  databaseLayer,
  Snowflakes.layerLeased.pipe(Layer.provideMerge(RedisClient.layer))
)

/** The actors this process hosts (embedded and shard processes). */
export const entitiesLayer = (settings: Settings) => {
  const idle = { maxIdleTime: `${settings.actorIdleMinutes} minutes` as const }
  // UserEvents (DM channel actors tell users directly) is the caller's: in memory here, over Redis in a shard process.
  return Layer.mergeAll(GuildActor(idle), UserActor(idle), DmChannelActor(idle), RelationshipSweep).pipe(
    Layer.provide([GuildRepo.layer, GuildEvents.layer, DmRepo.layer, UserRepo.layer])
  )
}

/** The whole cluster in this one process: its actors on the embedded sharding, over Postgres. */
export const embeddedActorsLayer = (settings: Settings) =>
  entitiesLayer(settings).pipe(
    Layer.provide(UserEvents.layerLocal),
    Layer.provideMerge(embeddedSharding(settings)),
    Layer.provideMerge(LiveActors.layer),
    // One set of limits for the actors and the API beside them.
    Layer.provideMerge(Limits.layerLocal),
    Layer.provideMerge(Layer.mergeAll(databaseLayer, Snowflakes.layerLocal))
  )
