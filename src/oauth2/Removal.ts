import { Context, Effect, Layer } from "effect"
import * as Members from "../../shards/guild/operations/Members.ts"
import { Actors } from "../guilds/Actors.ts"
import type { BadRequest, Forbidden, NotFound, Unavailable } from "../model/Errors.ts"
import { BotTokens } from "./BotTokens.ts"
import { ApplicationsRepo } from "./Repo.ts"
import { CarriedId, type GuildId } from "../model/Ids.ts"

/**
 * DELETE /oauth2/applications/{id}: the bot leaves every guild, each through
 * its guild's actor, then the application goes with its secrets, codes and
 * tokens. The bot's user row stays, as the author of what it wrote; nothing
 * can sign in as it any more. A failure part way leaves the application in
 * place, and deleting again finishes the job.
 */
export class ApplicationRemoval extends Context.Service<ApplicationRemoval, {
  readonly remove: (applicationId: string) => Effect.Effect<void, BadRequest | Forbidden | NotFound | Unavailable>
}>()("guildhall/ApplicationRemoval") {
  static readonly layer = Layer.effect(
    ApplicationRemoval,
    Effect.gen(function*() {
      const repo = yield* ApplicationsRepo
      const actors = yield* Actors
      const bots = yield* BotTokens

      // A bot is the user of its application's id.
      const leave = (botId: string, guildId: GuildId) =>
        Effect.andThen(
          actors.write(guildId, Members.leaveGuild, {}, { actorId: botId }),
          // The user actor forgets the guild; Postgres already has no membership if this is lost.
          actors.user(CarriedId.UserId.make(botId)).Left({ guildId }).pipe(Effect.timeout("2 seconds"), Effect.ignore)
        )

      const remove = Effect.fn("ApplicationRemoval.remove")(function*(applicationId: string) {
        const guilds = yield* repo.botGuilds(applicationId)
        yield* Effect.forEach(guilds, (guildId) => leave(applicationId, guildId), { concurrency: 4, discard: true })
        yield* repo.remove(applicationId)
        yield* bots.forget(applicationId)
      })

      return ApplicationRemoval.of({ remove })
    })
  )
}
