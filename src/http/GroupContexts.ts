import { Context, Effect, Layer } from "effect"
import type { HttpRouter } from "effect/http"
import { Api } from "./Api.ts"

/*
 * HttpApiBuilder keeps the whole context a group was built in and merges it
 * into the context of every request the group serves: a copy of every service
 * of the application, on every request (measured: a third of `GET /_health`'s
 * time). Our handlers take their services when they are built, so what a
 * request needs of its group is only the middlewares. Such a group is built in
 * a context of those alone; its handlers' build effect reaches everything
 * else through `BuildContext`.
 */

/** Every service of the application, for building handlers (not for requests). */
export class BuildContext extends Context.Service<BuildContext, Context.Context<never>>()("guildhall/BuildContext") {}

/** Wraps a group's handler-building effect: it runs with every service of the application. */
export const withBuildContext = <A, E, R>(build: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | BuildContext> =>
  Effect.flatMap(BuildContext, (everything) =>
    Effect.updateContext(build, (lean: Context.Context<R>) => Context.merge(lean, everything)))

/** The middleware services of every endpoint: what requests look up in their group's context. */
const middlewareKeys = [
  ...new Set(Object.values(Api.groups).flatMap((group) => Object.values(group.endpoints).flatMap((e) => [...e.middlewares])))
]

/** Services a group's handlers look up per request, other than what middlewares provide. */
type PerRequestServices<R> = HttpRouter.Request.Only<"Requires", R>
type NoPerRequestServices<R> = [PerRequestServices<R>] extends [never] ? unknown
  : { readonly "take these services when the group is built": PerRequestServices<R> }

/**
 * A group (from `HttpApiBuilder.group`, its build wrapped in `withBuildContext`)
 * built in a context of the middlewares and `BuildContext` only. A handler that
 * looked a service up per request would find it missing, so that does not compile.
 */
export const perRequestMiddlewaresOnly = <A, E, R>(
  group: Layer.Layer<A, E, R | BuildContext> & NoPerRequestServices<R>
): Layer.Layer<A, E, R> =>
  Layer.fromBuild((memoMap, scope) =>
    Layer.buildWithMemoMap(group, memoMap, scope).pipe(
      Effect.updateContext((everything: Context.Context<R>) =>
        Context.add(Context.pick(...middlewareKeys)(everything), BuildContext, everything)
      )
    )
  )
