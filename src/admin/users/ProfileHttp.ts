import { Effect, type Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import {
  adminChangeEmail,
  adminChangeTag,
  adminClearFields,
  adminSetBot,
  adminSetDateOfBirth,
  adminSetSystem,
  adminSetTraits,
  adminUnlinkPhone,
  adminUpdateFlags,
  adminVerifyEmail
} from "../../../shards/user/operations/AdminProfile.ts"
import { setSuspiciousFlags } from "../../../shards/user/operations/AdminSecurity.ts"
import type { ReplyCodec, WriteDefinition } from "../../../shards/user/Definitions.ts"
import { sendPasswordReset } from "../../auth/EmailTokens.ts"
import type { OneTimeTokens } from "../../auth/OneTimeTokens.ts"
import { Recovery } from "../../auth/Recovery.ts"
import { formatDiscriminator, freeDiscriminator, usernameProblem } from "../../auth/Usernames.ts"
import { MemberUsers } from "../../guilds/MemberUsers.ts"
import { UserActors } from "../../guilds/UserActors.ts"
import { Api } from "../../http/Api.ts"
import { CurrentOperator } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import type { Mailer } from "../../mail/Mailer.ts"
import { BadRequest, invalidField } from "../../model/Errors.ts"
import { ALL_SUSPICIOUS_ACTIVITY_FLAGS, userFlag } from "../../model/UserFlags.ts"
import type { AppConfig } from "../../platform/Config.ts"
import { UsersRepo } from "../../users/Repo.ts"
import { forEachId } from "../Bulk.ts"
import { AdminRepo } from "../Repo.ts"
import { AdminUserViews } from "./View.ts"

type Fields<Tag extends string, F extends Schema.Struct.Fields> = Schema.TaggedStruct<Tag, F>["~type.make.in"]

const tagTaken = () => invalidField("username", "TAG_ALREADY_TAKEN", "This username and discriminator are taken")
const emailTaken = () => invalidField("email", "EMAIL_ALREADY_IN_USE", "Email is already registered")

/** UserFlags named or given by value, as decimal text; the first unknown one is UNKNOWN_USER_FLAG at `path.i`. */
const parseFlags = (path: string, flags: ReadonlyArray<string | number> | undefined) => {
  const values: Array<string> = []
  for (const [i, flag] of (flags ?? []).entries()) {
    const value = userFlag(flag)
    if (value === undefined) return Effect.fail(invalidField(`${path}.${i}`, "UNKNOWN_USER_FLAG", `Unknown user flag ${flag}`))
    values.push(value.toString())
  }
  return Effect.succeed(values)
}

/** YYYY-MM-DD (the request's form) naming a day that exists, after 1900 and before today. */
const isPastDate = (text: string) => {
  const [year = 0, month = 0, day = 0] = text.split("-").map(Number)
  const date = new Date(Date.UTC(year, month - 1, day))
  return year >= 1900 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day &&
    date.getTime() < Date.now()
}

export const AdminUserProfileHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "adminUserProfile", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const repo = yield* AdminRepo
    const views = yield* AdminUserViews
    const userActors = yield* UserActors
    const users = yield* UsersRepo
    const memberUsers = yield* MemberUsers
    const recovery = yield* Recovery
    const mailing = yield* Effect.context<OneTimeTokens | Mailer | AppConfig>()

    /**
     * An operator's write through the user's actor, then the admin view as it now
     * stands, audited; `partial` when the change shows on the user's partial (the guilds hear of it).
     */
    const change = <Tag extends string, F extends Schema.Struct.Fields, Reply extends ReplyCodec>(
      userId: string,
      action: string,
      definition: WriteDefinition<Tag, F, Reply>,
      fields: Fields<Tag, F>,
      options: { readonly partial: boolean; readonly metadata?: Record<string, string> }
    ) =>
      Effect.gen(function*() {
        const op = yield* CurrentOperator
        yield* userActors.write(userId, definition, fields, { actorId: op.id })
        if (options.partial) yield* memberUsers.propagate(userId)
        const user = yield* views.byId(userId)
        yield* repo.audit({ adminId: op.id, action, targetType: "user", targetId: userId, metadata: options.metadata ?? {} })
        return { user }
      })

    /** The discriminator `username` gets: the one asked for, else the user's own when free, else a random free one. */
    const settleTag = (userId: string, username: string, asked: number | undefined) =>
      Effect.gen(function*() {
        const current = yield* views.byId(userId)
        const own = formatDiscriminator(current.discriminator)
        const taken = new Set(yield* users.takenDiscriminators(username))
        if (current.username.toLowerCase() === username.toLowerCase()) taken.delete(own)
        const wanted = asked === undefined ? own : formatDiscriminator(asked)
        if (!taken.has(wanted)) return { discriminator: wanted, old: current.username }
        const free = asked === undefined ? freeDiscriminator(taken) : undefined
        return free === undefined ? yield* tagTaken() : { discriminator: free, old: current.username }
      })

    /** The unique index refused the change: another account took the tag or address meanwhile. */
    const conflictAs = (refusal: () => BadRequest) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.catchIf(effect, (e) => e instanceof BadRequest && e.code === "CONFLICT", () => Effect.fail(refusal()))

    return handlers
      .handle("changeUsername", ({ payload }) =>
        Effect.gen(function*() {
          const problem = usernameProblem(payload.username)
          if (problem !== undefined) {
            return yield* new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: [problem] })
          }
          const tag = yield* settleTag(payload.user_id, payload.username, payload.discriminator)
          return yield* change(payload.user_id, "user.change_username", adminChangeTag, {
            username: payload.username,
            discriminator: tag.discriminator
          }, {
            partial: true,
            metadata: { old_username: tag.old, new_username: payload.username, discriminator: tag.discriminator }
          }).pipe(conflictAs(tagTaken))
        }))
      .handle("changeEmail", ({ payload }) =>
        Effect.gen(function*() {
          const before = yield* views.byId(payload.user_id)
          const owner = yield* users.findByEmail(payload.email)
          if (owner !== undefined && owner.id !== payload.user_id) return yield* emailTaken()
          return yield* change(payload.user_id, "user.change_email", adminChangeEmail, { email: payload.email }, {
            partial: false,
            metadata: { old_email: before.email ?? "null", new_email: payload.email }
          }).pipe(conflictAs(emailTaken))
        }))
      .handle("changeDob", ({ payload }) =>
        Effect.gen(function*() {
          if (!isPastDate(payload.date_of_birth)) {
            return yield* invalidField("date_of_birth", "INVALID_DATE_OF_BIRTH", "Not a past date")
          }
          const before = yield* views.byId(payload.user_id)
          return yield* change(payload.user_id, "user.change_dob", adminSetDateOfBirth, { dateOfBirth: payload.date_of_birth }, {
            partial: false,
            metadata: { old_dob: before.date_of_birth ?? "null", new_dob: payload.date_of_birth }
          })
        }))
      .handle("clearFields", ({ payload }) =>
        change(payload.user_id, "user.clear_fields", adminClearFields, { fields: payload.fields }, {
          partial: payload.fields.some((field) => field === "avatar" || field === "global_name"),
          metadata: { fields: payload.fields.join(",") }
        }))
      .handle("updateFlags", ({ payload }) =>
        Effect.gen(function*() {
          const add = yield* parseFlags("add_flags", payload.add_flags)
          const remove = yield* parseFlags("remove_flags", payload.remove_flags)
          return yield* change(payload.user_id, "user.update_flags", adminUpdateFlags, { add, remove }, {
            partial: true,
            metadata: { add_flags: add.join(","), remove_flags: remove.join(",") }
          })
        }))
      .handle("updateSuspiciousActivityFlags", ({ payload }) =>
        Effect.gen(function*() {
          if ((payload.flags & ~ALL_SUSPICIOUS_ACTIVITY_FLAGS) !== 0) {
            return yield* invalidField("flags", "UNKNOWN_SUSPICIOUS_FLAG", "Unknown suspicious activity flags")
          }
          return yield* change(
            payload.user_id,
            "user.update_suspicious_activity_flags",
            setSuspiciousFlags,
            { flags: payload.flags },
            { partial: false, metadata: { flags: String(payload.flags) } }
          )
        }))
      .handle("setTraits", ({ payload }) =>
        change(payload.user_id, "user.set_traits", adminSetTraits, { traits: payload.traits }, {
          partial: false,
          metadata: { traits: payload.traits.join(",") }
        }))
      .handle("setBotStatus", ({ payload }) =>
        change(payload.user_id, "user.set_bot_status", adminSetBot, { bot: payload.bot }, {
          partial: true,
          metadata: { bot: String(payload.bot) }
        }))
      .handle("setSystemStatus", ({ payload }) =>
        change(payload.user_id, "user.set_system_status", adminSetSystem, { system: payload.system }, {
          partial: true,
          metadata: { system: String(payload.system) }
        }))
      .handle("verifyEmail", ({ payload }) =>
        Effect.gen(function*() {
          const before = yield* views.byId(payload.user_id)
          return yield* change(payload.user_id, "user.verify_email", adminVerifyEmail, {}, {
            partial: false,
            metadata: { email: before.email ?? "null" }
          })
        }))
      .handle("unlinkPhone", ({ payload }) =>
        Effect.gen(function*() {
          const before = yield* views.byId(payload.user_id)
          return yield* change(payload.user_id, "user.unlink_phone", adminUnlinkPhone, {}, {
            partial: false,
            metadata: { phone: before.phone ?? "null" }
          })
        }))
      .handle("resendVerificationEmail", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const user = yield* views.byId(payload.user_id)
          // As the user's own resend: an address already verified is refused.
          yield* recovery.resendVerification(payload.user_id)
          yield* repo.audit({
            adminId: op.id,
            action: "user.resend_verification_email",
            targetType: "user",
            targetId: payload.user_id,
            metadata: { email: user.email ?? "null" }
          })
        }))
      .handle("sendPasswordReset", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const user = yield* views.byId(payload.user_id)
          if (user.email === null) return yield* invalidField("email", "EMAIL_IS_REQUIRED", "User does not have an email address")
          yield* Effect.provideContext(sendPasswordReset(user.id, user.email), mailing)
          yield* repo.audit({
            adminId: op.id,
            action: "user.send_password_reset",
            targetType: "user",
            targetId: payload.user_id,
            metadata: { email: user.email }
          })
        }))
      .handle("bulkUpdateUserFlags", ({ payload }) =>
        Effect.gen(function*() {
          const op = yield* CurrentOperator
          const add = yield* parseFlags("add_flags", payload.add_flags)
          const remove = yield* parseFlags("remove_flags", payload.remove_flags)
          const result = yield* forEachId(payload.user_ids, (userId) =>
            change(userId, "user.update_flags", adminUpdateFlags, { add, remove }, {
              partial: true,
              metadata: { add_flags: add.join(","), remove_flags: remove.join(","), bulk: "true" }
            }))
          yield* repo.audit({
            adminId: op.id,
            action: "bulk.update_user_flags",
            targetType: "user",
            targetId: "0",
            metadata: {
              user_count: String(payload.user_ids.length),
              failed_count: String(result.failed.length),
              add_flags: add.join(","),
              remove_flags: remove.join(",")
            }
          })
          return result
        }))
  }))))
