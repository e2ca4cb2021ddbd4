import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { loadPartialUsers } from "../../shards/actors/PartialUsers.ts"
import { replaceMemberUser } from "../../shards/guild/operations/MemberUsers.ts"
import { listGuilds } from "../../shards/user/operations/Guilds.ts"
import { Unavailable } from "../model/Errors.ts"
import type { GuildId } from "../model/Ids.ts"
import type { UserPartialResponse } from "../model/Users.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { Actors } from "./Actors.ts"
import { UserActors } from "./UserActors.ts"

/** Guild actors told at once: enough to keep a user of many guilds quick, few enough to leave the runners to others. */
const CONCURRENCY = 8
/** More guilds than anyone is in. */
const ALL_GUILDS = 1_000_000

/** The columns of `users` a partial user shows: a change of any of them is told to the user's guilds. */
export const PARTIAL_USER_FIELDS: ReadonlySet<string> = new Set([
  "username", "discriminator", "global_name", "avatar", "flags", "bot", "system", "mention_flags"
])

/** Whether changes of the columns `changed` show on the user's partial. */
export const changesPartialUser = (changed: Iterable<string>): boolean => {
  for (const column of changed) if (PARTIAL_USER_FIELDS.has(column)) return true
  return false
}

/**
 * After a write of a user's actor changed their partial user (PATCH /users/@me,
 * an operator): each guild the actor holds replaces the member's user and tells
 * its members (GUILD_MEMBER_UPDATE). The user is read once from Postgres after
 * the write committed, so the last of two close changes leaves the newest.
 * A guild that does not answer keeps the old user until it loads again; it is
 * logged, not raised: the user's change stands either way.
 */
export class MemberUsers extends Context.Service<MemberUsers, {
  readonly propagate: (userId: string) => Effect.Effect<void>
}>()("guildhall/MemberUsers") {
  static readonly layer = Layer.effect(
    MemberUsers,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const actors = yield* Actors
      const userActors = yield* UserActors
      const snowflakes = yield* Snowflakes

      const tell = (guildId: GuildId, user: UserPartialResponse, userId: string) => {
        // One operation id for both tries: a first try that committed unseen is answered, not done again.
        const operationId = snowflakes.next()
        const once = actors.write(guildId, replaceMemberUser, { user }, { actorId: userId, operationId })
        return once.pipe(
          Effect.catchIf((e) => e instanceof Unavailable, () => once),
          Effect.catch((error) => Effect.logWarning("a guild did not take the member's new user", guildId, userId, error.message))
        )
      }

      const propagate = Effect.fn("MemberUsers.propagate")(function*(userId: string) {
        const guildIds = yield* userActors.read(userId, listGuilds, { limit: ALL_GUILDS })
        if (guildIds.length === 0) return
        const user = (yield* Effect.provideService(loadPartialUsers([userId]), SqlClient.SqlClient, sql)).get(userId)
        if (user === undefined) return
        yield* Effect.forEach(guildIds, (guildId) => tell(guildId, user, userId), { concurrency: CONCURRENCY, discard: true })
      }, (effect, userId) =>
        Effect.catch(effect, (error) => Effect.logWarning("the user's guilds were not told of their new user", userId, String(error)))
      )

      return MemberUsers.of({ propagate })
    })
  )
}
