import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { BadRequest } from "../../src/model/Errors.ts"
import { idArray } from "../guild/messages/MessageRows.ts"
import { ChannelType } from "../../src/model/Channels.ts"

/**
 * Group DMs one user may be in at once. The spec names the error (MAX_GROUP_DMS)
 * but not the number; this is the reference platform's MAX_GROUP_DMS_PER_USER.
 */
export const MAX_GROUP_DMS_PER_USER = 150

export const maxGroupDms = () =>
  new BadRequest({ code: "MAX_GROUP_DMS", message: `A user can be in at most ${MAX_GROUP_DMS_PER_USER} group DMs` })

/**
 * Whether each of `userIds` has room for one more group DM. Run it in the
 * transaction that adds them: it holds a lock per user until that transaction
 * ends, so two group DMs made at once cannot both take a user's last place.
 */
export const roomInGroupDms = (sql: SqlClient.SqlClient, userIds: ReadonlyArray<string>): Effect.Effect<boolean> => {
  const ids = [...new Set(userIds)]
  if (ids.length === 0) return Effect.succeed(true)
  return Effect.gen(function*() {
    // Locks of their own key space (not the user id the relationship locks take), taken
    // in user id order (the ordered subquery) so that two of these cannot deadlock.
    yield* sql`
      SELECT count(pg_advisory_xact_lock(k)) FROM (
        SELECT hashtextextended('group_dms:' || u.id::text, 0) AS k FROM unnest(${idArray(ids)}::bigint[]) AS u(id)
        ORDER BY u.id) ordered`
    const [row] = yield* sql<{ full: number }>`
      SELECT count(*)::int AS full FROM (
        SELECT r.user_id FROM dm_recipients r JOIN channels c ON c.id = r.channel_id
        WHERE r.user_id IN ${sql.in(ids)} AND c.type = ${ChannelType.GROUP_DM}
        GROUP BY r.user_id HAVING count(*) >= ${MAX_GROUP_DMS_PER_USER}) at_limit`
    return (row?.full ?? 0) === 0
  }).pipe(Effect.orDie)
}
