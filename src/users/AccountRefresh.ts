import { Effect } from "effect"
import type { UserActors } from "../guilds/UserActors.ts"
import { NotFound, Unavailable } from "../model/Errors.ts"

/**
 * What a flow does right after committing a change of the account outside the
 * user's actor (flows whose secrets live elsewhere: MFA, phone, email and
 * password, the account's lifecycle, message self-deletion): the actor reads
 * the account again and tells the user's sessions (USER_UPDATE), so no cached
 * view outlives the change. An account that is gone makes the actor drop what
 * it held; that is what a deletion wants, not a failure.
 */
export const refreshAccount = (userActors: UserActors["Service"], userId: string): Effect.Effect<void, Unavailable> =>
  userActors.refresh(userId).pipe(
    Effect.asVoid,
    // Refresh fails with nothing but UNKNOWN_USER or the actor's silence.
    Effect.catch((error): Effect.Effect<void, Unavailable> =>
      error instanceof NotFound ? Effect.void : error instanceof Unavailable ? Effect.fail(error) : Effect.die(error))
  )

/** `refreshAccount` where the change stands whatever the actor says (a job, a login): its silence is logged, not raised. */
export const refreshAccountOrLog = (userActors: UserActors["Service"], userId: string): Effect.Effect<void> =>
  refreshAccount(userActors, userId).pipe(
    Effect.catch((error) => Effect.logWarning("the user's actor did not re-read the account", userId, error.message))
  )
