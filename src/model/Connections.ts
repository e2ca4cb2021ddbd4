import { Schema } from "effect"
import { BadRequest, NotFound } from "./Errors.ts"

/**
 * Account connections (part C, Connections): an account on a federated social
 * network (`social`, a handle) or a domain (`domain`) the user proved they
 * control. The reference calls the first `bsky`; the spec part names it `social`.
 */
export const CONNECTION_TYPES = ["social", "domain"] as const
export const ConnectionType = Schema.Literals(CONNECTION_TYPES)
export type ConnectionType = typeof ConnectionType.Type

/** Connections one user may have at once (the reorder request's own bound). */
export const MAX_CONNECTIONS = 20

/**
 * Who sees a connection on the user's profile: the bits of the profile's
 * other privacy flags (ProfileFieldPrivacyFlags): everyone who may see the
 * profile 1, friends 2, members of a shared guild 4. No bit: the owner only.
 */
export const ConnectionVisibility = { EVERYONE: 1, FRIENDS: 2, MUTUAL_GUILDS: 4 } as const
export const DEFAULT_VISIBILITY = ConnectionVisibility.EVERYONE
export const VisibilityFlags = Schema.Int.check(
  Schema.isBetween({ minimum: 0, maximum: 7 }, { message: "INVALID_FORMAT: Only the bits 1 (everyone), 2 (friends) and 4 (mutual guilds) exist" })
)

const NonNegativeInt32 = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2147483647 }))

/** ConnectionResponse: `name` is the handle or the domain, as it was verified (lower case). */
export const ConnectionResponse = Schema.Struct({
  id: Schema.String,
  type: ConnectionType,
  name: Schema.String,
  verified: Schema.Boolean,
  visibility_flags: NonNegativeInt32,
  sort_order: NonNegativeInt32
})
export type ConnectionResponse = typeof ConnectionResponse.Type

/** Whether `viewer`, tied to the owner as given, may see a connection of `flags` on the owner's profile. */
export const visibleTo = (flags: number, viewer: { readonly friend: boolean; readonly sharesGuild: boolean }): boolean =>
  (flags & ConnectionVisibility.EVERYONE) !== 0 ||
  ((flags & ConnectionVisibility.FRIENDS) !== 0 && viewer.friend) ||
  ((flags & ConnectionVisibility.MUTUAL_GUILDS) !== 0 && viewer.sharesGuild)

/** No connection of that type and id is the user's (another user's id is as unknown as a made-up one). */
export const connectionNotFound = () => new NotFound({ code: "CONNECTION_NOT_FOUND", message: "Unknown connection" })
export const connectionAlreadyExists = () =>
  new BadRequest({ code: "CONNECTION_ALREADY_EXISTS", message: "This account is connected already" })
export const connectionLimitReached = () =>
  new BadRequest({ code: "CONNECTION_LIMIT_REACHED", message: `An account may have at most ${MAX_CONNECTIONS} connections` })
