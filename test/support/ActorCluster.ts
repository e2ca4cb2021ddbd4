import { Context, Effect, Layer, Option, Redacted } from "effect"
import { embeddedActorsLayer } from "../../shards/Layers.ts"
import { AppConfig, settingsConfig } from "../../src/platform/Config.ts"
import { scratchDatabase } from "./Postgres.ts"

/** The scratch database the actors of `ActorCluster` write to, for a test to look at. */
export class DatabaseUrl extends Context.Service<DatabaseUrl, string>()("test/DatabaseUrl") {}

/** The actors on the embedded sharding, against a scratch database: no HTTP in between. */
export const ActorCluster = Layer.unwrap(Effect.gen(function*() {
  const url = yield* scratchDatabase
  const settings = { ...(yield* settingsConfig), databaseUrl: Option.some(Redacted.make(url)) }
  const config = Layer.succeed(AppConfig, settings)
  return Layer.mergeAll(embeddedActorsLayer(settings), Layer.succeed(DatabaseUrl, url)).pipe(Layer.provide(config))
}))

/** The owner the actor tests create their guilds for, as the guild actor receives it. */
export const testOwner = { id: "1", username: "owner", discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 }
