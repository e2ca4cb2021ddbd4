import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { EmailChange } from "../account/EmailChange.ts"
import { Sudo } from "../auth/Sudo.ts"
import { formatDiscriminator, usernameProblem } from "../auth/Usernames.ts"
import { Actors } from "../guilds/Actors.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { getAccount, getAccountBasics } from "../../shards/user/operations/Account.ts"
import { listGuilds } from "../../shards/user/operations/Guilds.ts"
import * as Members from "../../shards/guild/operations/Members.ts"
import * as Reads from "../../shards/guild/Reads.ts"
import { Api } from "../http/Api.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { jsonResponse } from "../http/SharedBodies.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { Forbidden, invalidField, NotFound, unauthorized, unknown } from "../model/Errors.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { Profiles } from "./Profiles.ts"
import { UsersRepo } from "./Repo.ts"
import { toUserPartial, type UserPrivateResponse } from "../model/Users.ts"
import { queryFlag } from "./Requests.ts"
import { UserUpdates } from "./Updates.ts"
import type { GuildId, UserId } from "../model/Ids.ts"

/** The account as an OAuth2 access token shows it: the address and phone only with the `email` scope. */
const asGranted = (view: UserPrivateResponse, scopes: ReadonlyArray<string>): UserPrivateResponse => {
  if (scopes.includes("email")) return view
  const { phone: _phone, ...withoutPhone } = view
  return { ...withoutPhone, email: null }
}

const UsersHandlers = HttpApiBuilder.group(Api, "users", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const users = yield* UsersRepo
    const actors = yield* Actors
    const userActors = yield* UserActors
    const updates = yield* UserUpdates
    const profiles = yield* Profiles
    const sudo = yield* Sudo
    const emailChange = yield* EmailChange

    /** The target as a member of the guild, when both are in it; null otherwise, as the reference does. */
    const guildMember = (guildId: GuildId, viewerId: string, targetId: UserId) =>
      actors.read(guildId, Members.getMember, { targetId }, viewerId).pipe(
        Effect.catchIf((e) => e instanceof NotFound || e instanceof Forbidden, () => Effect.succeed(null))
      )

    return handlers
      .handle("me", () =>
        Effect.flatMap(CurrentUser, ({ id, grant }) =>
          grant === undefined
            // The actor's JSON is the body as it is: the hot path of every client's start.
            ? Effect.catchIf(userActors.readAsResponse(id, getAccount, {}), (e) => e instanceof NotFound, () => unauthorized())
            : Effect.map(updates.privateView(id), (view) => asGranted(view, grant.scopes))))
      .handle("updateMe", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const plan = yield* updates.plan(me, payload)
          if (plan.needsSudo) yield* sudo.require(me, payload)
          // The email change itself was made by its flow (verify-new); the token only confirms it here.
          if (payload.email_token !== undefined) {
            const address = yield* emailChange.redeemEmailToken(me.id, payload.email_token)
            if (address === undefined || (payload.email !== undefined && payload.email.toLowerCase() !== address.toLowerCase())) {
              return yield* invalidField("email_token", "INVALID_EMAIL_TOKEN", "Invalid or expired email token")
            }
            // The flow wrote the address to Postgres: the actor reads it again before the write.
            yield* updates.announce(me.id)
          }
          return yield* updates.commit(me, plan)
        }))
      .handle("myGuilds", ({ query }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const ids = yield* userActors.read(me.id, listGuilds, { before: query.before, after: query.after, limit: query.limit ?? 200 })
          // A guild that vanished between the two reads is left out rather than failing the list.
          const views = yield* Effect.forEach(
            ids,
            (id) => actors.readGuild(id, Reads.view(me.id), (guild) => guild.View({ userId: me.id })).pipe(Effect.option),
            { concurrency: 16 }
          )
          return jsonResponse(`[${views.flatMap((v) => (v._tag === "Some" ? [v.value] : [])).join(",")}]`)
        }))
      .handle("checkTag", ({ query }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const problem = usernameProblem(query.username)
          if (problem !== undefined) return yield* invalidField(problem.path, problem.code ?? "INVALID_FORMAT", problem.message)
          const discriminator = formatDiscriminator(Number(query.discriminator))
          const mine = yield* userActors.read(me.id, getAccountBasics, {}).pipe(Effect.catchIf((e) => e instanceof NotFound, () => unauthorized()))
          // One's own tag is not taken: it is free for oneself.
          if (mine.username.toLowerCase() === query.username.toLowerCase() && mine.discriminator === discriminator) {
            return { taken: false }
          }
          return { taken: (yield* users.takenDiscriminators(query.username)).has(discriminator) }
        }))
      .handle("user", ({ params }) =>
        Effect.gen(function*() {
          const row = yield* users.findById(params.user_id)
          if (row === undefined) return yield* unknown("USER")
          return toUserPartial(row)
        }))
      .handle("profile", ({ params, query }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const profile = yield* profiles.view(me.id, params.target_id, {
            withMutualFriends: queryFlag(query.with_mutual_friends),
            withMutualGuilds: queryFlag(query.with_mutual_guilds)
          })
          if (query.guild_id === undefined) return profile
          const member = yield* guildMember(query.guild_id, me.id, params.target_id)
          return {
            ...profile,
            ...(member === null ? {} : { guild_member: member }),
            guild_member_profile: member === null
              ? null
              : { bio: null, pronouns: null, banner: member.banner ?? null, accent_color: member.accent_color ?? null }
          }
        }))
  })))

/** The user routes, with their rate limiting (built here, as the auth routes do, so no shared file changes). */
export const UsersHttp = perRequestMiddlewaresOnly(UsersHandlers).pipe(Layer.provide(RateLimitLive))
