import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AdminAuthentication } from "../../http/Authentication.ts"
import { BoundedText } from "../../model/Common.ts"
import { BulkOperationResponse } from "../Bulk.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { Snowflake } from "../../model/Ids.ts"
import { AdminUserResult } from "./View.ts"

// Operators' security and lifecycle actions on an account (part B, Users; the production shapes).

const Int = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))
const Reason = BoundedText(0, 512)

export const UserIdRequest = Schema.Struct({ user_id: Snowflake })

export const DeleteWebAuthnCredentialRequest = Schema.Struct({ user_id: Snowflake, credential_id: BoundedText(1, 1024) })

export const TerminateSessionsResponse = Schema.Struct({ terminated_count: Schema.Int })

/** `duration_hours` 0 is a ban without end; the longest temporary one is ten years. */
export const TempBanUserRequest = Schema.Struct({ user_id: Snowflake, duration_hours: Int(0, 87_600), reason: Schema.optional(Reason) })

/** SuspiciousActivityFlags (part B): eight bits, at least one to verify. */
export const DisableForSuspiciousActivityRequest = Schema.Struct({ user_id: Snowflake, flags: Int(1, 255) })

const deletionFields = {
  reason_code: Int(0, 2_147_483_647),
  days_until_deletion: Schema.optional(Int(0, 3650)),
  public_reason: Schema.optional(Reason)
}

export const ScheduleAccountDeletionRequest = Schema.Struct({ user_id: Snowflake, ...deletionFields })
export type ScheduleAccountDeletionRequest = typeof ScheduleAccountDeletionRequest.Type

export const BulkScheduleUserDeletionRequest = Schema.Struct({
  user_ids: Schema.Array(Snowflake).check(Schema.isMinLength(1), Schema.isMaxLength(1000)),
  ...deletionFields
})

const userAction = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  HttpApiEndpoint.post(name, path, { payload: UserIdRequest, success: AdminUserResult, error: ApiErrors })

export class AdminUserSecurityApi extends HttpApiGroup.make("adminUserSecurity").add(
  HttpApiEndpoint.post("disableMfa", "/admin/users/disable-mfa", { payload: UserIdRequest, error: ApiErrors }),
  HttpApiEndpoint.post("deleteWebauthnCredential", "/admin/users/delete-webauthn-credential", {
    payload: DeleteWebAuthnCredentialRequest,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("terminateSessions", "/admin/users/terminate-sessions", {
    payload: UserIdRequest,
    success: TerminateSessionsResponse,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("tempBan", "/admin/users/temp-ban", { payload: TempBanUserRequest, success: AdminUserResult, error: ApiErrors }),
  userAction("unban", "/admin/users/unban"),
  HttpApiEndpoint.post("disableSuspicious", "/admin/users/disable-suspicious", {
    payload: DisableForSuspiciousActivityRequest,
    success: AdminUserResult,
    error: ApiErrors
  }),
  HttpApiEndpoint.post("scheduleDeletion", "/admin/users/schedule-deletion", {
    payload: ScheduleAccountDeletionRequest,
    success: AdminUserResult,
    error: ApiErrors
  }),
  userAction("cancelDeletion", "/admin/users/cancel-deletion"),
  userAction("cancelBulkMessageDeletion", "/admin/users/cancel-bulk-message-deletion"),
  HttpApiEndpoint.post("bulkScheduleDeletion", "/admin/bulk/schedule-user-deletion", {
    payload: BulkScheduleUserDeletionRequest,
    success: BulkOperationResponse,
    error: ApiErrors
  })
).middleware(AdminAuthentication) {}
