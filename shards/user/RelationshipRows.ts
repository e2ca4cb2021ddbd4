import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { RelationshipTypeCode } from "../../src/model/Relationships.ts"
import { toUserPartial, UserPartialColumns } from "../../src/model/Users.ts"
import { IsoTimestamp } from "../../src/platform/Timestamps.ts"
import { partialUserColumns } from "../actors/PartialUsers.ts"
import type { Relationship } from "./State.ts"

/** A row of `relationships` (schema/0008_relationships_push.sql) with the other user's partial columns. */
const RelationshipRow = Schema.Struct({
  ...UserPartialColumns.fields,
  relationship_type: RelationshipTypeCode,
  nickname: Schema.NullOr(Schema.String),
  since: IsoTimestamp
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(RelationshipRow))

/** The user's relationships by the other user's id, each with that user as they are now. */
export const loadRelationships = (sql: SqlClient.SqlClient, userId: string) =>
  Effect.gen(function*() {
    const rows = yield* sql`
      SELECT ${sql.literal(partialUserColumns("u"))}, r.type AS relationship_type, r.nickname, r.since
      FROM relationships r JOIN users u ON u.id = r.target_id
      WHERE r.user_id = ${userId}`
    const decoded = yield* decodeRows(rows)
    return new Map(decoded.map((row): [string, Relationship] => [
      row.id,
      { type: row.relationship_type, nickname: row.nickname, since: row.since, user: toUserPartial(row) }
    ]))
  })

/** `userId`'s row toward `targetId` as a decision left it: written whole, or deleted when there is none. */
export const writeSide = (userId: string, targetId: string, side: Relationship | undefined) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(
      side === undefined
        ? sql`DELETE FROM relationships WHERE user_id = ${userId} AND target_id = ${targetId}`
        : sql`INSERT INTO relationships (user_id, target_id, type, nickname, since)
              VALUES (${userId}, ${targetId}, ${side.type}, ${side.nickname}, ${side.since}::timestamptz)
              ON CONFLICT (user_id, target_id)
              DO UPDATE SET type = EXCLUDED.type, nickname = EXCLUDED.nickname, since = EXCLUDED.since`
    ))
