import { Schema } from "effect"

/** How many devices one user keeps subscribed; a new one pushes out the longest unrefreshed. */
export const MAX_SUBSCRIPTIONS = 50

/** GET /users/@me/push/subscriptions: the user's devices, oldest subscription first. */
export const PushSubscriptionsListResponse = Schema.Struct({
  subscriptions: Schema.Array(Schema.Struct({ subscription_id: Schema.String, user_agent: Schema.NullOr(Schema.String) }))
})
export type PushSubscriptionsListResponse = typeof PushSubscriptionsListResponse.Type
