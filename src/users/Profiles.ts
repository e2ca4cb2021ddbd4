import { Context, Effect, Layer } from "effect"
import { ShownConnections } from "../connections/Shown.ts"
import { visibleTo } from "../model/Connections.ts"
import { type Forbidden, missingAccess, type NotFound, unknown } from "../model/Errors.ts"
import { type SharedGuild, UserLinks } from "./Links.ts"
import type { UserProfileFullResponse } from "./ProfileSchemas.ts"
import { UsersRepo } from "./Repo.ts"
import { toUserPartial, type UserRow } from "../model/Users.ts"

/** ProfilePrivacyLevel 1 shows the full profile to members of shared guilds up to this size. */
export const SMALL_GUILD_MEMBERS = 200
const FRIEND = 1
const INCOMING = 3
const OUTGOING = 4
/** ProfileFieldPrivacyFlags. */
const EVERYONE = 1
const FRIENDS = 2
const MUTUAL_GUILDS = 4

export interface ProfileOptions {
  readonly withMutualFriends: boolean
  readonly withMutualGuilds: boolean
}

/** The zone's current offset from UTC in minutes (`GMT+05:30` is 330). */
export const offsetMinutes = (timeZone: string, at: Date): number | null => {
  const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(at)
    .find((part) => part.type === "timeZoneName")?.value
  if (name === undefined) return null
  const m = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name)
  if (m === null) return null
  const minutes = Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)
  return m[1] === "-" ? -minutes : minutes
}

/**
 * GET /users/{id}/profile without its guild part. Anyone may see their own
 * profile and a bot's; another user's needs a friendship, a pending request
 * or a shared guild (else 403 MISSING_ACCESS). The target's `profile_privacy`
 * setting may then limit it (`profile_limited`): no bio, pronouns, timezone,
 * connections. `connected_accounts` holds the verified connections the
 * viewer may see by their visibility_flags; the owner sees all of them.
 */
export class Profiles extends Context.Service<Profiles, {
  readonly view: (
    viewerId: string,
    targetId: string,
    options: ProfileOptions
  ) => Effect.Effect<UserProfileFullResponse, NotFound | Forbidden>
}>()("guildhall/Profiles") {
  static readonly layer = Layer.effect(
    Profiles,
    Effect.gen(function*() {
      const users = yield* UsersRepo
      const links = yield* UserLinks
      const connections = yield* ShownConnections

      const limited = (target: UserRow, relationship: number | undefined, shared: ReadonlyArray<SharedGuild>) =>
        Effect.gen(function*() {
          if (relationship === FRIEND) return false
          switch (yield* links.profilePrivacy(target.id)) {
            case 2:
              return true
            case 1:
              return !shared.some((g) => g.memberCount <= SMALL_GUILD_MEMBERS)
            default:
              return shared.length === 0
          }
        })

      const timezoneOffset = (target: UserRow, self: boolean, friend: boolean, sharesGuild: boolean) => {
        const flags = target.timezone_privacy_flags ?? 0
        const visible = self
          ? flags !== 0
          : (flags & EVERYONE) !== 0 || ((flags & FRIENDS) !== 0 && friend) || ((flags & MUTUAL_GUILDS) !== 0 && sharesGuild)
        return visible && target.timezone ? offsetMinutes(target.timezone, new Date()) : null
      }

      const view = Effect.fn("Profiles.view")(function*(viewerId: string, targetId: string, options: ProfileOptions) {
        const target = yield* users.findById(targetId)
        if (target === undefined) return yield* unknown("USER")
        const self = viewerId === targetId
        const relationship = self ? undefined : yield* links.relationship(viewerId, targetId)
        const shared = self ? [] : yield* links.sharedGuilds(viewerId, targetId)
        const related = relationship === FRIEND || relationship === INCOMING || relationship === OUTGOING
        if (!self && !target.bot && !related && shared.length === 0) return yield* missingAccess()
        const restricted = !self && !target.bot && (yield* limited(target, relationship, shared))
        const mutualFriends = options.withMutualFriends && !self ? yield* links.mutualFriends(viewerId, targetId) : undefined
        const viewer = { friend: relationship === FRIEND, sharesGuild: shared.length > 0 }
        const connected = restricted || target.bot
          ? []
          : (yield* connections.verifiedOf(targetId)).filter((c) => self || visibleTo(c.visibility_flags, viewer))
        return {
          user: toUserPartial(target),
          user_profile: {
            bio: restricted ? null : target.bio,
            pronouns: restricted ? null : target.pronouns,
            banner: target.banner,
            banner_color: null,
            accent_color: target.accent_color
          },
          ...(mutualFriends === undefined ? {} : { mutual_friends: mutualFriends.map(toUserPartial) }),
          ...(options.withMutualGuilds && !self ? { mutual_guilds: shared.map((g) => ({ id: g.id, nick: g.nick })) } : {}),
          connected_accounts: connected,
          timezone_offset: restricted ? null : timezoneOffset(target, self, relationship === FRIEND, shared.length > 0),
          profile_limited: restricted
        }
      })

      return Profiles.of({ view })
    })
  )
}
