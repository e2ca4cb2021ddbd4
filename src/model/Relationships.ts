import { Schema } from "effect"
import { UserPartialResponse } from "./Users.ts"

/** RelationshipTypes: what the other user is to the one who reads the row. */
export const RelationshipType = { friend: 1, blocked: 2, incoming: 3, outgoing: 4 } as const
export type RelationshipType = (typeof RelationshipType)[keyof typeof RelationshipType]

/** A relationship type as it is stored and sent. */
export const RelationshipTypeCode = Schema.Literals([1, 2, 3, 4])

export const RelationshipResponse = Schema.Struct({
  id: Schema.String,
  type: RelationshipTypeCode,
  user: UserPartialResponse,
  since: Schema.optional(Schema.String),
  nickname: Schema.NullOr(Schema.String),
  share_voice_activity: Schema.Boolean,
  friend_shares_voice_activity: Schema.Boolean
})
export type RelationshipResponse = typeof RelationshipResponse.Type

/** Friends plus outgoing requests one user may have (the reference platform's friend list size). */
export const MAX_FRIENDS = 1000
