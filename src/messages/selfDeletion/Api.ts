import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Credentials, UserAuthentication, userOnly } from "../../http/Authentication.ts"
import { SuccessResponse } from "../../model/Common.ts"
import { ApiErrors } from "../../model/Errors.ts"
import { SudoVerificationRequest } from "../../mfa/Schemas.ts"

/** What a deletion would take: the user's guild messages now, and their channels. */
export const MessageDeletionCounts = Schema.Struct({ channel_count: Schema.Int, message_count: Schema.Int })

/** Deleting all of one's own guild messages: a durable job (SelfDeletionJob.ts), asked for in sudo mode. */
export class SelfDeletionApi extends HttpApiGroup.make("messageSelfDeletion").add(
  HttpApiEndpoint.post("request", "/users/@me/messages/delete", { payload: SudoVerificationRequest, error: ApiErrors }).annotate(Credentials, userOnly),
  HttpApiEndpoint.post("test", "/users/@me/messages/delete/test", { success: MessageDeletionCounts, error: ApiErrors }).annotate(Credentials, userOnly),
  HttpApiEndpoint.delete("cancel", "/users/@me/messages/delete", { success: SuccessResponse, error: ApiErrors }).annotate(Credentials, userOnly)
).middleware(UserAuthentication) {}
