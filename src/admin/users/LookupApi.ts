import { Schema } from "effect"
import { GuildAdminResponse } from "../../model/AdminGuilds.ts"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { BoundedText } from "../../model/Common.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { Snowflake } from "../../model/Ids.ts"
import { WebAuthnCredentialResponse } from "../../mfa/Schemas.ts"
import { UserAdminResponse } from "./View.ts"

// The read side of POST /admin/users/*: lookups, search, the change log and what an account holds.

const Limit = (maximum: number) => Schema.Int.check(Schema.isBetween({ minimum: 1, maximum }))
const Offset = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000_000 }))

/** Users asked for by id at once, at most. */
export const MAX_LOOKUP_IDS = 100

/** Either one query (an id, a `username#1234` tag, an email, a `+` phone) or ids. */
export const LookupUserRequest = Schema.Union([
  Schema.Struct({ query: BoundedText(1, 1024) }),
  Schema.Struct({ user_ids: Schema.Array(Snowflake).check(Schema.isMaxLength(MAX_LOOKUP_IDS)) })
])
export type LookupUserRequest = typeof LookupUserRequest.Type

export const UsersResponse = Schema.Struct({ users: Schema.Array(UserAdminResponse) })

export const SearchUsersRequest = Schema.Struct({
  query: Schema.optional(BoundedText(1, 1024)),
  limit: Schema.optional(Limit(100)),
  offset: Schema.optional(Offset)
})
export type SearchUsersRequest = typeof SearchUsersRequest.Type

export const SearchUsersResponse = Schema.Struct({ users: Schema.Array(UserAdminResponse), total: Schema.Int })

const UserIdRequest = Schema.Struct({ user_id: Snowflake })

export const ListUserChangeLogRequest = Schema.Struct({
  user_id: Snowflake,
  limit: Schema.optional(Limit(200)),
  /** The `next_page_token` of the page before: entries older than it. */
  page_token: Schema.optional(Snowflake)
})
export type ListUserChangeLogRequest = typeof ListUserChangeLogRequest.Type

export const UserChangeLogEntry = Schema.Struct({
  event_id: Schema.String,
  field: Schema.String,
  old_value: Schema.NullOr(Schema.String),
  new_value: Schema.NullOr(Schema.String),
  reason: Schema.Literals(["user_requested", "admin_action"]),
  actor_user_id: Schema.NullOr(Schema.String),
  event_at: Schema.String
})
export type UserChangeLogEntry = typeof UserChangeLogEntry.Type

export const ListUserChangeLogResponse = Schema.Struct({
  entries: Schema.Array(UserChangeLogEntry),
  /** Null when this page is the last. */
  next_page_token: Schema.NullOr(Schema.String)
})

export const UserSessionResponse = Schema.Struct({
  session_id_hash: Schema.String,
  created_at: Schema.String,
  approx_last_used_at: Schema.String,
  client_ip: Schema.String,
  client_ip_reverse: Schema.NullOr(Schema.String),
  client_os: Schema.NullOr(Schema.String),
  client_platform: Schema.NullOr(Schema.String),
  client_location: Schema.NullOr(Schema.String)
})

/** A page of a user's DM channels or guilds, by id: `before` newest first, `after` oldest first. */
const pageFields = {
  user_id: Snowflake,
  before: Schema.optional(Snowflake),
  after: Schema.optional(Snowflake),
  limit: Schema.optional(Limit(200))
}

export const ListUserDmChannelsRequest = Schema.Struct(pageFields)
export type ListUserDmChannelsRequest = typeof ListUserDmChannelsRequest.Type

export const AdminUserDmChannel = Schema.Struct({
  channel_id: Schema.String,
  channel_type: Schema.NullOr(Schema.Int),
  is_open: Schema.Boolean,
  last_message_id: Schema.NullOr(Schema.String),
  recipient_ids: Schema.Array(Schema.String)
})
export type AdminUserDmChannel = typeof AdminUserDmChannel.Type

/** `with_counts` is taken as production's clients send it; the member count is always given (it is a required field). */
export const ListUserGuildsRequest = Schema.Struct({ ...pageFields, with_counts: Schema.optional(Schema.Boolean) })
export type ListUserGuildsRequest = typeof ListUserGuildsRequest.Type

// One shape for every admin guild list: the guild routes' (src/admin/guilds) and this one's.
export { GuildAdminResponse } from "../../model/AdminGuilds.ts"

export class AdminUserLookupApi extends HttpApiGroup.make("adminUserLookup").add(
  HttpApiEndpoint.post("lookupUser", "/admin/users/lookup", { payload: LookupUserRequest, success: UsersResponse, error: ApiErrors }),
  HttpApiEndpoint.post("searchUsers", "/admin/users/search", {
    payload: SearchUsersRequest,
    success: SearchUsersResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("userChangeLog", "/admin/users/change-log", {
    payload: ListUserChangeLogRequest,
    success: ListUserChangeLogResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("listUserSessions", "/admin/users/list-sessions", {
    payload: UserIdRequest,
    success: Schema.Struct({ sessions: Schema.Array(UserSessionResponse) }),
    error: ApiErrors
  }),
  HttpApiEndpoint.post("listUserDmChannels", "/admin/users/list-dm-channels", {
    payload: ListUserDmChannelsRequest,
    success: Schema.Struct({ channels: Schema.Array(AdminUserDmChannel) }),
    error: ApiErrors
  }),
  HttpApiEndpoint.post("listUserGuilds", "/admin/users/list-guilds", {
    payload: ListUserGuildsRequest,
    success: Schema.Struct({ guilds: Schema.Array(GuildAdminResponse) }),
    error: ApiErrors
  }),
  HttpApiEndpoint.post("listUserWebauthnCredentials", "/admin/users/list-webauthn-credentials", {
    payload: UserIdRequest,
    success: Schema.Array(WebAuthnCredentialResponse),
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
