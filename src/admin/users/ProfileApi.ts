import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ClearableField } from "../../../shards/user/operations/AdminProfile.ts"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { BoundedText } from "../../model/Common.ts"
import { BulkOperationResponse } from "../Bulk.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { Snowflake } from "../../model/Ids.ts"
import { AdminUserResult } from "./View.ts"

const UserTarget = { user_id: Snowflake }

const Email = Schema.String.check(
  Schema.isMaxLength(254),
  Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: "INVALID_EMAIL_FORMAT: Not a valid email address" })
)

/** A UserFlags name (`STAFF`) or value (`"1"`, `1`); which ones exist is checked by the handler (UNKNOWN_USER_FLAG). */
const Flag = Schema.Union([Schema.String.check(Schema.isMaxLength(64)), Schema.Int])
const Flags = Schema.Array(Flag).check(Schema.isMaxLength(64))

export const ChangeUsernameRequest = Schema.Struct({
  ...UserTarget,
  username: Schema.String.check(Schema.isMaxLength(64)),
  discriminator: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 9999 })))
})

export const ChangeEmailRequest = Schema.Struct({ ...UserTarget, email: Email })

export const ChangeDobRequest = Schema.Struct({
  ...UserTarget,
  date_of_birth: Schema.String.check(
    Schema.isPattern(/^\d{4}-\d{2}-\d{2}$/, { message: "INVALID_DATE_OF_BIRTH_FORMAT: Use YYYY-MM-DD" })
  )
})

export const ClearUserFieldsRequest = Schema.Struct({
  ...UserTarget,
  fields: Schema.Array(ClearableField).check(Schema.isMaxLength(5))
})

export const UpdateUserFlagsRequest = Schema.Struct({
  ...UserTarget,
  add_flags: Schema.optional(Flags),
  remove_flags: Schema.optional(Flags)
})

export const UpdateSuspiciousActivityFlagsRequest = Schema.Struct({
  ...UserTarget,
  flags: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2_147_483_647 }))
})

export const SetUserTraitsRequest = Schema.Struct({
  ...UserTarget,
  traits: Schema.Array(BoundedText(1, 64)).check(Schema.isMaxLength(64))
})

export const SetUserBotStatusRequest = Schema.Struct({ ...UserTarget, bot: Schema.Boolean })
export const SetUserSystemStatusRequest = Schema.Struct({ ...UserTarget, system: Schema.Boolean })
export const UserIdRequest = Schema.Struct(UserTarget)

export const BulkUpdateUserFlagsRequest = Schema.Struct({
  user_ids: Schema.Array(Snowflake).check(Schema.isMinLength(1), Schema.isMaxLength(1000)),
  add_flags: Schema.optional(Flags),
  remove_flags: Schema.optional(Flags)
})

const userChange = <Name extends string, Path extends `/${string}`, Payload extends Schema.Top>(name: Name, path: Path, payload: Payload) =>
  HttpApiEndpoint.post(name, path, { payload, success: AdminUserResult, error: ApiErrors })

/** Operators' changes of a user's identity and profile (part B, Users). */
export class AdminUserProfileApi extends HttpApiGroup.make("adminUserProfile").add(
  userChange("changeUsername", "/admin/users/change-username", ChangeUsernameRequest),
  userChange("changeEmail", "/admin/users/change-email", ChangeEmailRequest),
  userChange("changeDob", "/admin/users/change-dob", ChangeDobRequest),
  userChange("clearFields", "/admin/users/clear-fields", ClearUserFieldsRequest),
  userChange("updateFlags", "/admin/users/update-flags", UpdateUserFlagsRequest),
  userChange("updateSuspiciousActivityFlags", "/admin/users/update-suspicious-activity-flags", UpdateSuspiciousActivityFlagsRequest),
  userChange("setTraits", "/admin/users/set-traits", SetUserTraitsRequest),
  userChange("setBotStatus", "/admin/users/set-bot-status", SetUserBotStatusRequest),
  userChange("setSystemStatus", "/admin/users/set-system-status", SetUserSystemStatusRequest),
  userChange("verifyEmail", "/admin/users/verify-email", UserIdRequest),
  userChange("unlinkPhone", "/admin/users/unlink-phone", UserIdRequest),
  HttpApiEndpoint.post("resendVerificationEmail", "/admin/users/resend-verification-email", { payload: UserIdRequest, error: ApiErrors }),
  HttpApiEndpoint.post("sendPasswordReset", "/admin/users/send-password-reset", { payload: UserIdRequest, error: ApiErrors }),
  HttpApiEndpoint.post("bulkUpdateUserFlags", "/admin/bulk/update-user-flags", {
    payload: BulkUpdateUserFlagsRequest,
    success: BulkOperationResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
