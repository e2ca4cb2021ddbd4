import { Effect, Layer } from "effect"
import { EventFeed } from "./Feed.ts"
import { GatewayRegistry } from "./Registry.ts"

/** Delivers dispatches addressed to users (UserEvents.ts) to every session of each, in the order the feed gives them. */
export const UserFanoutLive = Layer.effectDiscard(Effect.gen(function*() {
  const feed = yield* EventFeed
  const registry = yield* GatewayRegistry
  yield* feed.nextForUsers.pipe(
    Effect.map((batch) => {
      for (const { userId, dispatch } of batch) {
        for (const session of registry.ofUser(userId)) session.dispatch(dispatch)
      }
    }),
    Effect.forever,
    Effect.forkScoped
  )
}))
