import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { heldAmong, holdsMessagesIn } from "../../shards/actors/LegalHolds.ts"
import { underLegalHold } from "../model/Errors.ts"

/** A message under a legal hold (a report's evidence) is kept: deleting it alone is refused. */
export const messageHeld = () => underLegalHold("This message is")

/**
 * The legal-hold questions of the deletion routes, with the SQL client taken
 * when their group is built (handlers look up no service per request).
 */
export const legalHoldCheck = (sql: SqlClient.SqlClient) => {
  const among = (ids: ReadonlyArray<string>) => heldAmong(ids).pipe(Effect.provideService(SqlClient.SqlClient, sql))
  return {
    /** The held ones among `ids`, as a list (for a write's `heldMessageIds`). */
    among: (ids: ReadonlyArray<string>) => Effect.map(among(ids), (held) => [...held]),
    /** Fails with RESOURCE_LOCKED when the message is held. */
    refuseHeld: (id: string) => Effect.flatMap(among([id]), (held) => (held.has(id) ? Effect.fail(messageHeld()) : Effect.void)),
    /** Fails with RESOURCE_LOCKED when a message of the guild or channel is held: deleting it would delete them. */
    refuseHeldIn: (scope: { readonly guildId: string } | { readonly channelId: string }) =>
      holdsMessagesIn(scope).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.flatMap((held) => (held ? Effect.fail(underLegalHold("Messages in it are")) : Effect.void))
      )
  }
}
