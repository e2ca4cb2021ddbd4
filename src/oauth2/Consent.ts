import { Context, Effect, Layer } from "effect"
import * as Bots from "../../shards/guild/operations/Bots.ts"
import { AppConfig } from "../platform/Config.ts"
import { Actors } from "../guilds/Actors.ts"
import { BadRequest, Forbidden, invalidField, type NotFound, type Unavailable } from "../model/Errors.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { UsersRepo } from "../users/Repo.ts"
import { toUserPartial } from "../model/Users.ts"
import { Applications, unknownApplication } from "./Applications.ts"
import { OAuth2Grants } from "./Grants.ts"
import type { ApplicationRow } from "./Repo.ts"
import type { AuthorizeConsentRequest } from "./Schemas.ts"
import { SCOPES } from "./Views.ts"
import { CarriedId, type GuildId, RoleId } from "../model/Ids.ts"

const refuse = (code: string, message: string) => new BadRequest({ code, message })

/** The scopes of a space-separated `scope`, each once, in the order SCOPES lists them. */
const parseScopes = (scope: string): Effect.Effect<ReadonlyArray<string>, BadRequest> => {
  const named = new Set(scope.split(/\s+/).filter((s) => s !== ""))
  if (named.size === 0 || [...named].some((s) => !SCOPES.includes(s))) {
    return Effect.fail(refuse("INVALID_SCOPE", `Scopes are space-separated, among: ${SCOPES.join(", ")}`))
  }
  return Effect.succeed(SCOPES.filter((s) => named.has(s)))
}

/**
 * POST /oauth2/authorize/consent: a person grants an application the scopes
 * it asked for. With `bot`, its bot joins the guild `guild_id` (the person
 * needs MANAGE_GUILD there); a private bot only on its owner's word. Every
 * other scope (or a bot that requires the code grant) sends back to one of the
 * application's redirect URIs with a code for POST /oauth2/token.
 */
export class Consent extends Context.Service<Consent, {
  readonly grant: (
    userId: string,
    request: AuthorizeConsentRequest
  ) => Effect.Effect<{ readonly redirect_to: string }, BadRequest | Forbidden | NotFound | Unavailable>
}>()("guildhall/Consent") {
  static readonly layer = Layer.effect(
    Consent,
    Effect.gen(function*() {
      const applications = yield* Applications
      const grants = yield* OAuth2Grants
      const actors = yield* Actors
      const users = yield* UsersRepo
      const snowflakes = yield* Snowflakes
      const { publicUrl } = yield* AppConfig

      const addBot = (userId: string, app: ApplicationRow, guildId: GuildId, permissions: string) =>
        Effect.gen(function*() {
          const bot = yield* users.findById(app.id)
          if (bot === undefined) return yield* unknownApplication()
          yield* actors.write(guildId, Bots.addBot, {
            bot: toUserPartial(bot),
            applicationName: app.name,
            roleId: RoleId.make(snowflakes.next()),
            permissions
          }, { actorId: userId })
          // The bot's user actor learns of the membership; Postgres already holds it if this is lost.
          // A bot is the user of its application's id.
          yield* actors.user(CarriedId.UserId.make(app.id)).Joined({ guildId }).pipe(Effect.timeout("2 seconds"), Effect.ignore, Effect.forkDetach)
        })

      const grant = Effect.fn("Consent.grant")(function*(userId: string, request: AuthorizeConsentRequest) {
        const scopes = yield* parseScopes(request.scope)
        const app = yield* applications.find(request.client_id)
        const wantsBot = scopes.includes("bot")
        const botOnly = wantsBot && scopes.length === 1
        if (wantsBot && !app.bot_public && app.owner_id !== userId) {
          return yield* new Forbidden({ code: "BOT_IS_PRIVATE", message: "Only the owner of this bot may add it" })
        }
        if (!botOnly && (request.response_type ?? "code") !== "code") {
          return yield* refuse("INVALID_RESPONSE_TYPE_FOR_NON_BOT", "response_type must be code")
        }
        const redirectUri = request.redirect_uri
        if (redirectUri === undefined && (!botOnly || app.bot_require_code_grant)) {
          return yield* refuse("REDIRECT_URI_REQUIRED_FOR_NON_BOT", "redirect_uri is required")
        }
        if (redirectUri !== undefined && !app.redirect_uris.includes(redirectUri)) {
          return yield* refuse("INVALID_REDIRECT_URI", "redirect_uri is not one of the application's")
        }
        if (request.channel_id !== undefined) {
          return yield* invalidField("channel_id", "INVALID_CHANNEL", "Bots are added to guilds, not to channels")
        }
        if (wantsBot) {
          if (request.guild_id === undefined) {
            return yield* invalidField("guild_id", "CONTEXT_CHANNEL_OR_GUILD_ID_REQUIRED", "The bot scope needs the guild to add the bot to")
          }
          yield* addBot(userId, app, request.guild_id, request.permissions ?? "0")
        }
        if (redirectUri === undefined) {
          const guild = request.guild_id === undefined ? "" : `?guild_id=${request.guild_id}`
          return { redirect_to: `${publicUrl}/oauth2/authorized${guild}` }
        }
        const code = yield* grants.issueCode({
          applicationId: app.id,
          userId,
          redirectUri,
          scopes,
          codeChallenge: request.code_challenge,
          codeChallengeMethod: request.code_challenge_method
        })
        const target = new URL(redirectUri)
        target.searchParams.set("code", code)
        if (request.state !== undefined) target.searchParams.set("state", request.state)
        if (request.guild_id !== undefined) target.searchParams.set("guild_id", request.guild_id)
        return { redirect_to: target.toString() }
      })

      return Consent.of({ grant })
    })
  )
}
