import { Context, Effect, Layer } from "effect"
import { passwordChangedMail } from "../account/Mails.ts"
import { Passwords } from "../auth/Passwords.ts"
import { passwordProblems } from "../auth/PasswordPolicy.ts"
import { Sessions } from "../auth/Sessions.ts"
import { formatDiscriminator, freeDiscriminator, usernameProblem } from "../auth/Usernames.ts"
import type { CurrentUser } from "../http/Authentication.ts"
import {
  BadRequest,
  type FieldError,
  type Forbidden,
  invalidField,
  missingAccess,
  NotFound,
  unauthorized,
  type Unauthorized,
  type Unavailable
} from "../model/Errors.ts"
import { Mailer } from "../mail/Mailer.ts"
import { imageFieldHash } from "./Images.ts"
import { PremiumFlags } from "../../shards/user/AccountView.ts"
import { UsersRepo } from "./Repo.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { changesPartialUser, MemberUsers } from "../guilds/MemberUsers.ts"
import {
  type AccountBasics,
  type AccountChanges,
  getAccount,
  getAccountBasics,
  presentChanges,
  updateAccount
} from "../../shards/user/operations/Account.ts"
import type { UserUpdateRequest } from "./Requests.ts"
import type { UserPrivateResponse } from "../model/Users.ts"

/** What PATCH /users/@me is to do, once its input has been checked. */
export interface UpdatePlan {
  readonly row: AccountBasics
  readonly changes: AccountChanges
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
  /** Writes the plan through the user's actor (its sessions hear USER_UPDATE, its guilds a new name or avatar); answers the private user. */
  readonly commit: (me: CurrentUser["Service"], plan: UpdatePlan) => Effect.Effect<UserPrivateResponse, BadRequest | Unauthorized | Unavailable>
  /** GET /users/@me's answer, from the user's actor. */
  readonly privateView: (userId: string) => Effect.Effect<UserPrivateResponse, Unauthorized | Unavailable>
  /**
   * After a flow changed the account in Postgres (email, MFA, phone, an operator): the
   * user's actor reads it again and tells their sessions (USER_UPDATE); answers the private user.
   */
  readonly announce: (userId: string) => Effect.Effect<UserPrivateResponse, Unauthorized | Unavailable>
}>()("guildhall/UserUpdates") {
  static readonly layer = Layer.effect(
    UserUpdates,
    Effect.gen(function*() {
      const users = yield* UsersRepo
      const passwords = yield* Passwords
      const sessions = yield* Sessions
      const mailer = yield* Mailer
      const userActors = yield* UserActors
      const memberUsers = yield* MemberUsers
      /** What the request is checked against; a user whose account is gone is signed out. */
      const account = (userId: string) =>
        userActors.read(userId, getAccountBasics, {}).pipe(Effect.catchIf((e) => e instanceof NotFound, () => unauthorized()))

      const plan = Effect.fn("UserUpdates.plan")(function*(me: CurrentUser["Service"], body: UserUpdateRequest) {
        const row = yield* account(me.id)
        if (body.premium_enabled_override !== undefined && !row.staff) return yield* missingAccess()
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

        let premiumFlags = row.premium_flags
        premiumFlags = withFlag(premiumFlags, PremiumFlags.badgeHidden, body.premium_badge_hidden)
        premiumFlags = withFlag(premiumFlags, PremiumFlags.badgeMasked, body.premium_badge_masked)
        premiumFlags = withFlag(premiumFlags, PremiumFlags.badgeTimestampHidden, body.premium_badge_timestamp_hidden)
        premiumFlags = withFlag(premiumFlags, PremiumFlags.badgeSequenceHidden, body.premium_badge_sequence_hidden)
        premiumFlags = withFlag(premiumFlags, PremiumFlags.enabledOverride, body.premium_enabled_override)
        const globalName = cleared(body.global_name)
        const changes: AccountChanges = {
          global_name: globalName === undefined || globalName === null ? globalName : globalName.trim(),
          avatar,
          banner,
          bio: cleared(body.bio),
          pronouns: cleared(body.pronouns),
          accent_color: body.accent_color,
          timezone,
          timezone_privacy_flags: body.timezone_privacy_flags,
          premium_flags: premiumFlags === row.premium_flags ? undefined : premiumFlags,
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
      const settleTag = (row: AccountBasics, username: string, named: string | undefined) =>
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
        const passwordHash = newPassword === undefined ? {} : { passwordHash: yield* passwords.hash(newPassword) }
        const present = presentChanges({ ...changes, ...tag })
        const view = yield* userActors.write(me.id, updateAccount, { changes: present, ...passwordHash }, {
          actorId: me.id
        }).pipe(
          // The unique index refused the tag: another account took it meanwhile.
          Effect.catchIf((e) => e instanceof BadRequest && e.code === "CONFLICT", () => tagTaken()),
          Effect.catchIf((e) => e instanceof NotFound, () => unauthorized())
        )
        // The guilds show the user's name and avatar on each of their members.
        if (changesPartialUser(Object.keys(present))) yield* memberUsers.propagate(me.id)
        if (newPassword !== undefined) yield* signOutOthers(me, row.email)
        return view
      })

      const privateView = Effect.fn("UserUpdates.privateView")((userId: string) =>
        userActors.read(userId, getAccount, {}).pipe(Effect.catchIf((e) => e instanceof NotFound, () => unauthorized())))

      const announce = Effect.fn("UserUpdates.announce")((userId: string) =>
        userActors.refresh(userId).pipe(Effect.catchIf((e) => e instanceof NotFound, () => unauthorized())))

      return UserUpdates.of({ plan, commit, privateView, announce })
    })
  )
}
