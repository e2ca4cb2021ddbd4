import { Effect } from "effect"
import type { UserActors } from "../guilds/UserActors.ts"
import { NotFound, Unavailable } from "../model/Errors.ts"
import { getAccountBasics } from "../../shards/user/operations/Account.ts"

/**
 * Before a flow changes the account's email or phone outside the user's actor:
 * the actor holds the account now, so the Refresh after the change sees what
 * it was and logs the change (shards/user/ChangeLog.ts). An actor that loads
 * only at the Refresh would know nothing older. Its silence stops no flow.
 */
export const holdAccount = (userActors: UserActors["Service"], userId: string): Effect.Effect<void> =>
  Effect.ignore(userActors.read(userId, getAccountBasics, {}))

/**
 * What a flow does right after committing a change of the account outside the
 * user's actor (flows whose secrets live elsewhere: MFA, phone, email and
 * password, the account's lifecycle, message self-deletion): the actor reads
 * the account again and tells the user's sessions (USER_UPDATE), so no cached
 * view outlives the change. An account that is gone makes the actor drop what
 * it held; that is what a deletion wants, not a failure. `actorId`: who made
 * the change (an operator), for the account's change log; the user when absent.
 */
export const refreshAccount = (userActors: UserActors["Service"], userId: string, actorId?: string): Effect.Effect<void, Unavailable> =>
  userActors.refresh(userId, actorId).pipe(
    Effect.asVoid,
    // Refresh fails with nothing but UNKNOWN_USER or the actor's silence.
    Effect.catch((error): Effect.Effect<void, Unavailable> =>
      error instanceof NotFound ? Effect.void : error instanceof Unavailable ? Effect.fail(error) : Effect.die(error))
  )

/** `refreshAccount` where the change stands whatever the actor says (a job, a login): its silence is logged, not raised. */
export const refreshAccountOrLog = (userActors: UserActors["Service"], userId: string, actorId?: string): Effect.Effect<void> =>
  refreshAccount(userActors, userId, actorId).pipe(
    Effect.catch((error) => Effect.logWarning("the user's actor did not re-read the account", userId, error.message))
  )
