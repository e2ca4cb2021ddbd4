import { Effect, Exit } from "effect"

/** Whether `effect` is already its outcome: its A and E are those of the effect it is. */
const isAnswered = <A, E>(effect: Effect.Effect<A, E>): effect is Exit.Exit<A, E> => Exit.isExit(effect)

/**
 * `Effect.map`, applied at once when `effect` is already its outcome (an Exit):
 * a read of an actor's published state is mostly answered so. Staying an Exit
 * through its maps, the read costs the request's fiber no step per map, and its
 * caller counts it without one (src/guilds/Actors.ts).
 */
export const mapAnswered = <A, B, E>(effect: Effect.Effect<A, E>, f: (a: A) => B): Effect.Effect<B, E> => {
  if (!isAnswered(effect)) return Effect.map(effect, f)
  return Exit.isSuccess(effect) ? Exit.succeed(f(effect.value)) : Exit.failCause(effect.cause)
}
