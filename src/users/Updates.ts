import { Context, Effect, Layer, Schema } from "effect"
import { passwordChangedMail } from "../account/Mails.ts"
import { Passwords } from "../auth/Passwords.ts"
import { passwordProblems } from "../auth/PasswordPolicy.ts"
import { Sessions } from "../auth/Sessions.ts"
import { formatDiscriminator, freeDiscriminator, usernameProblem } from "../auth/Usernames.ts"
import { UserEvents } from "../../shards/UserEvents.ts"
import type { CurrentUser } from "../http/Authentication.ts"
import {
  BadRequest,
  type FieldError,
  type Forbidden,
  invalidField,
  missingAccess,
  unauthorized,
  type Unauthorized
} from "../model/Errors.ts"
import { Mailer } from "../mail/Mailer.ts"
import { SelfDeletionRepo } from "../messages/selfDeletion/Repo.ts"
import { MfaProofs } from "../mfa/Proofs.ts"
import { imageFieldHash } from "./Images.ts"
import { PremiumFlags, toUserPrivate, type UserChanges, UsersRepo } from "./Repo.ts"
import { type UserRow } from "../model/Users.ts"
import type { UserUpdateRequest } from "./Requests.ts"
import { UserPrivateResponse } from "../model/Users.ts"

/** What PATCH /users/@me is to do, once its input has been checked. */
export interface UpdatePlan {
  readonly row: UserRow
  readonly changes: UserChanges
  /** A new username; the discriminator to go with it is settled when the plan is committed. */
  readonly username?: string
  /** The discriminator the request named, when it names the current one next to a new username. */
  readonly discriminator?: string
  readonly newPassword?: string
  /** A new username or password: sudo mode is needed before committing. */
  readonly needsSudo: boolean
}

const tagTaken = () => invalidField("username", "TAG_ALREADY_TAKEN", "This username and discriminator are taken")

/** Empty or blank text clears a field like null. */
const cleared = (text: string | null | undefined) =>
  text === undefined ? undefined : text === null || text.trim() === "" ? null : text

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

const withFlag = (flags: number, flag: number, on: boolean | undefined) =>
  on === undefined ? flags : on ? flags | flag : flags & ~flag

/**
 * PATCH /users/@me in two steps around sudo mode: `plan` checks everything a
 * request says (and needs no proof), `commit` settles the tag and writes.
 *
 * - Email changes go through the email-change flow; here an address is only
 *   accepted with that flow's `email_token` (EMAIL_MUST_BE_CHANGED_VIA_TOKEN).
 * - A new username keeps the current discriminator when that tag is free,
 *   else gets a random free one. Nobody has premium here, so choosing another
 *   discriminator is CHANGING_DISCRIMINATOR_REQUIRES_PREMIUM.
 * - A new password ends every other session of the account and is mailed about.
 */
export class UserUpdates extends Context.Service<UserUpdates, {
  readonly plan: (me: CurrentUser["Service"], body: UserUpdateRequest) => Effect.Effect<UpdatePlan, BadRequest | Forbidden | Unauthorized>
  readonly commit: (me: CurrentUser["Service"], plan: UpdatePlan) => Effect.Effect<void, BadRequest>
  /** GET /users/@me's answer, with the user's MFA methods. */
  readonly privateView: (userId: string) => Effect.Effect<UserPrivateResponse, Unauthorized>
  /** After a committed change of the user: USER_UPDATE with `privateView` to their own sessions; answers that view. */
  readonly announce: (userId: string) => Effect.Effect<UserPrivateResponse, Unauthorized>
}>()("guildhall/UserUpdates") {
  static readonly layer = Layer.effect(
    UserUpdates,
    Effect.gen(function*() {
      const users = yield* UsersRepo
      const passwords = yield* Passwords
      const sessions = yield* Sessions
      const mailer = yield* Mailer
      const mfa = yield* MfaProofs
      const deletions = yield* SelfDeletionRepo
      const userEvents = yield* UserEvents
      const encodeView = Schema.encodeEffect(UserPrivateResponse)

      const plan = Effect.fn("UserUpdates.plan")(function*(me: CurrentUser["Service"], body: UserUpdateRequest) {
        const row = yield* users.findById(me.id)
        if (row === undefined) return yield* unauthorized()
        if (body.premium_enabled_override !== undefined && row.acls.length === 0) return yield* missingAccess()
        const problems: Array<FieldError> = []
        const problem = (path: string, code: string, message: string) => problems.push({ path, code, message })

        const username = body.username !== undefined && body.username !== row.username ? body.username : undefined
        const nameProblem = username === undefined ? undefined : usernameProblem(username)
        if (nameProblem !== undefined) problems.push(nameProblem)
        const discriminator = body.discriminator === undefined ? undefined : formatDiscriminator(Number(body.discriminator))
        if (discriminator !== undefined && discriminator !== row.discriminator) {
          problem("discriminator", "CHANGING_DISCRIMINATOR_REQUIRES_PREMIUM", "Choosing a discriminator needs premium")
        }
        const email = body.email?.toLowerCase()
        if (body.email_token === undefined && email !== undefined && email !== row.email?.toLowerCase()) {
          problem("email", "EMAIL_MUST_BE_CHANGED_VIA_TOKEN", "Change the email address through the email change flow")
        }
        if (body.new_password !== undefined) problems.push(...passwordProblems(body.new_password, "new_password"))
        const zone = cleared(body.timezone)
        const timezone = zone === undefined || zone === null ? zone : zone.trim()
        if (timezone !== undefined && timezone !== null && !isTimeZone(timezone)) {
          problem("timezone", "INVALID_TIMEZONE_IDENTIFIER", "Not an IANA time zone")
        }
        const image = imageFieldHash(problems)
        const avatar = image(body.avatar, "avatar")
        const banner = image(body.banner, "banner")
        if (problems.length > 0) {
          return yield* new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: problems })
        }

        let premiumFlags = row.premium_flags ?? 0
        premiumFlags = withFlag(premiumFlags, PremiumFlags.badgeHidden, body.premium_badge_hidden)
        premiumFlags = withFlag(premiumFlags, PremiumFlags.badgeMasked, body.premium_badge_masked)
        premiumFlags = withFlag(premiumFlags, PremiumFlags.badgeTimestampHidden, body.premium_badge_timestamp_hidden)
        premiumFlags = withFlag(premiumFlags, PremiumFlags.badgeSequenceHidden, body.premium_badge_sequence_hidden)
        premiumFlags = withFlag(premiumFlags, PremiumFlags.enabledOverride, body.premium_enabled_override)
        const globalName = cleared(body.global_name)
        const changes: UserChanges = {
          global_name: globalName === undefined || globalName === null ? globalName : globalName.trim(),
          avatar,
          banner,
          bio: cleared(body.bio),
          pronouns: cleared(body.pronouns),
          accent_color: body.accent_color,
          timezone,
          timezone_privacy_flags: body.timezone_privacy_flags,
          premium_flags: premiumFlags === (row.premium_flags ?? 0) ? undefined : premiumFlags,
          mention_flags: body.mention_flags
        }
        return {
          row,
          changes,
          username,
          discriminator,
          newPassword: body.new_password,
          needsSudo: username !== undefined || body.new_password !== undefined
        }
      })

      /** The discriminator a new username gets: the named or current one when free there, else a random free one. */
      const settleTag = (row: UserRow, username: string, named: string | undefined) =>
        Effect.gen(function*() {
          if (username.toLowerCase() === row.username.toLowerCase()) return row.discriminator
          const taken = yield* users.takenDiscriminators(username)
          const wanted = named ?? row.discriminator
          if (!taken.has(wanted)) return wanted
          const free = named === undefined ? freeDiscriminator(taken) : undefined
          return free === undefined ? yield* tagTaken() : free
        })

      const signOutOthers = (me: CurrentUser["Service"], email: string | null) =>
        Effect.gen(function*() {
          const others = (yield* sessions.list(me.id)).filter((s) => !s.tokenHash.equals(me.session.tokenHash))
          yield* sessions.revokeMany(me.id, others.map((s) => s.tokenHash))
          if (email === null) return
          // Best effort: the change is made whether or not the mail goes out.
          yield* mailer.send(passwordChangedMail(email)).pipe(
            Effect.catch((error) => Effect.logWarning("password-changed mail not delivered", error.message))
          )
        })

      const commit = Effect.fn("UserUpdates.commit")(function*(
        me: CurrentUser["Service"],
        { row, changes, username, discriminator, newPassword }: UpdatePlan
      ) {
        const tag = username === undefined ? {} : { username, discriminator: yield* settleTag(row, username, discriminator) }
        const password = newPassword === undefined
          ? {}
          : { password_hash: yield* passwords.hash(newPassword), password_changed_at: new Date() }
        if (!(yield* users.update(me.id, { ...changes, ...tag, ...password }))) return yield* tagTaken()
        if (newPassword !== undefined) yield* signOutOthers(me, row.email)
      })

      const privateView = Effect.fn("UserUpdates.privateView")(function*(userId: string) {
        const row = yield* users.findById(userId)
        if (row === undefined) return yield* unauthorized()
        const methods = yield* mfa.methods(userId)
        const pending = yield* deletions.pending(userId)
        return toUserPrivate(row, [...(methods.totp ? [0] : []), ...(methods.webauthn ? [2] : [])], pending)
      })

      // READY's `user` and this event are the same object, so a client replaces what it holds.
      const announce = Effect.fn("UserUpdates.announce")(function*(userId: string) {
        const view = yield* privateView(userId)
        const data = yield* Effect.orDie(encodeView(view))
        yield* userEvents.publish([userId], { type: "USER_UPDATE", data: JSON.stringify(data) })
        return view
      })

      return UserUpdates.of({ plan, commit, privateView, announce })
    })
  )
}
