import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { setBan, setOperatorDeletion, setSuspiciousFlags } from "../../../shards/user/operations/AdminSecurity.ts"
import { deletionScheduledMail, suspendedMail, suspiciousActivityMail, unsuspendedMail } from "../../auth/Mails.ts"
import { Sessions } from "../../auth/Sessions.ts"
import { UserActors } from "../../guilds/UserActors.ts"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { type Mail, Mailer } from "../../mail/Mailer.ts"
import { SelfDeletionRepo } from "../../messages/selfDeletion/Repo.ts"
import { MfaRepo } from "../../mfa/Repo.ts"
import { BotTokens } from "../../oauth2/BotTokens.ts"
import { unknown } from "../../model/Errors.ts"
import { refreshAccount } from "../../users/AccountRefresh.ts"
import { AdminRepo } from "../Repo.ts"
import type { ScheduleAccountDeletionRequest } from "./SecurityApi.ts"
import { AdminUserViews } from "./View.ts"

/** The production service's reason code for a deletion the user asked for; its shortest grace period. */
const USER_REQUESTED = 1
const USER_REQUESTED_MIN_DAYS = 14
const MIN_DAYS = 60

const AdminUserSecurityHandlers = HttpApiBuilder.group(Api, "adminUserSecurity", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* AdminRepo
    const views = yield* AdminUserViews
    const userActors = yield* UserActors
    const sessions = yield* Sessions
    const mfa = yield* MfaRepo
    const bulkDeletions = yield* SelfDeletionRepo
    const mailer = yield* Mailer
    const botTokens = yield* BotTokens

    /** The owner hears of it where they have an address; a failed delivery does not undo the act. */
    const tell = (email: string | null, mail: (to: string) => Mail) =>
      email === null
        ? Effect.void
        : mailer.send(mail(email)).pipe(Effect.catch((error) => Effect.logWarning("admin: a notice to a user was not sent", error.message)))

    const audit = (adminId: string, action: string, userId: string, metadata?: Record<string, string>) =>
      repo.audit({ adminId, action, targetType: "user", targetId: userId, ...(metadata === undefined ? {} : { metadata }) })

    /** Schedules one deletion, ends the user's sessions, audits and mails; the view after. */
    const scheduleDeletion = (adminId: string, userId: string, request: Omit<ScheduleAccountDeletionRequest, "user_id">) =>
      Effect.gen(function*() {
        const minimum = request.reason_code === USER_REQUESTED ? USER_REQUESTED_MIN_DAYS : MIN_DAYS
        const days = Math.max(request.days_until_deletion ?? MIN_DAYS, minimum)
        const at = new Date(Date.now() + days * 86_400_000)
        const publicReason = request.public_reason ?? null
        yield* userActors.write(userId, setOperatorDeletion, {
          at: at.toISOString(),
          reasonCode: request.reason_code,
          publicReason
        }, { actorId: adminId })
        yield* sessions.revokeAllOf(userId)
        const view = yield* views.byId(userId)
        yield* audit(adminId, "user.schedule_deletion", userId, { days: String(days), reason_code: String(request.reason_code) })
        yield* tell(view.email, (to) => deletionScheduledMail(to, publicReason, at))
        return view
      })

    return handlers
      .handle("disableMfa", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* views.byId(payload.user_id)
          yield* mfa.disableAll(payload.user_id)
          yield* refreshAccount(userActors, payload.user_id)
          yield* audit(op.id, "user.disable_mfa", payload.user_id)
        }))
      .handle("deleteWebauthnCredential", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* views.byId(payload.user_id)
          if (!(yield* mfa.deleteCredential(payload.user_id, payload.credential_id))) return yield* unknown("WEBAUTHN_CREDENTIAL")
          yield* refreshAccount(userActors, payload.user_id)
          yield* audit(op.id, "user.delete_webauthn_credential", payload.user_id, { credential_id: payload.credential_id })
        }))
      .handle("terminateSessions", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* views.byId(payload.user_id)
          const count = yield* sessions.revokeAllOf(payload.user_id)
          yield* audit(op.id, "user.terminate_sessions", payload.user_id, { terminated_count: String(count) })
          return { terminated_count: count }
        }))
      // The ban is committed before the sessions end, so no login slips in between.
      .handle("tempBan", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const now = Date.now()
          const until = payload.duration_hours === 0 ? null : new Date(now + payload.duration_hours * 3_600_000)
          yield* userActors.write(payload.user_id, setBan, {
            bannedAt: new Date(now).toISOString(),
            until: until?.toISOString() ?? null
          }, { actorId: op.id })
          yield* sessions.revokeAllOf(payload.user_id)
          const view = yield* views.byId(payload.user_id)
          yield* audit(op.id, "user.temp_ban", payload.user_id, {
            duration_hours: String(payload.duration_hours),
            reason: payload.reason ?? "null",
            banned_until: until?.toISOString() ?? "permanent"
          })
          yield* tell(view.email, (to) => suspendedMail(to, payload.reason ?? null, until))
          return { user: view }
        }))
      .handle("unban", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* userActors.write(payload.user_id, setBan, { bannedAt: null, until: null }, { actorId: op.id })
          // A bot's refused token is remembered for a few seconds (BotTokens.ts): here it is forgotten at once.
          yield* botTokens.forget(payload.user_id)
          const view = yield* views.byId(payload.user_id)
          yield* audit(op.id, "user.unban", payload.user_id)
          yield* tell(view.email, unsuspendedMail)
          return { user: view }
        }))
      .handle("disableSuspicious", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* userActors.write(payload.user_id, setSuspiciousFlags, { flags: payload.flags }, { actorId: op.id })
          yield* sessions.revokeAllOf(payload.user_id)
          const view = yield* views.byId(payload.user_id)
          yield* audit(op.id, "user.disable_suspicious_activity", payload.user_id, { flags: String(payload.flags) })
          yield* tell(view.email, suspiciousActivityMail)
          return { user: view }
        }))
      .handle("scheduleDeletion", ({ payload: { user_id, ...request } }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          return { user: yield* scheduleDeletion(op.id, user_id, request) }
        }))
      .handle("cancelDeletion", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* userActors.write(payload.user_id, setOperatorDeletion, { at: null, reasonCode: null, publicReason: null }, {
            actorId: op.id
          })
          const view = yield* views.byId(payload.user_id)
          yield* audit(op.id, "user.cancel_deletion", payload.user_id)
          return { user: view }
        }))
      .handle("cancelBulkMessageDeletion", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          yield* views.byId(payload.user_id)
          // The job stops at its next batch, finding its row gone (src/messages/selfDeletion/Job.ts).
          if (yield* bulkDeletions.cancel(payload.user_id)) yield* refreshAccount(userActors, payload.user_id)
          yield* audit(op.id, "user.cancel_bulk_message_deletion", payload.user_id)
          return { user: yield* views.byId(payload.user_id) }
        }))
      // One by one, each failing alone (as the production service does).
      .handle("bulkScheduleDeletion", ({ payload: { user_ids, ...request } }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const outcomes = yield* Effect.forEach([...new Set(user_ids)], (id) =>
            scheduleDeletion(op.id, id, request).pipe(
              Effect.match({
                onSuccess: () => ({ id, error: undefined }),
                onFailure: (error) => ({ id, error: error.message })
              })
            ))
          yield* repo.audit({
            adminId: op.id,
            action: "user.bulk_schedule_deletion",
            targetType: "user",
            targetId: "0",
            metadata: { user_count: String(user_ids.length), reason_code: String(request.reason_code) }
          })
          return {
            successful: outcomes.flatMap((o) => (o.error === undefined ? [o.id] : [])),
            failed: outcomes.flatMap((o) => (o.error === undefined ? [] : [{ id: o.id, error: o.error }]))
          }
        }))
  })))

export const AdminUserSecurityHttp = perRequestMiddlewaresOnly(AdminUserSecurityHandlers).pipe(
  Layer.provide(SelfDeletionRepo.layer)
)
