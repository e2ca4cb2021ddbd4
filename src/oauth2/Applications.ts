import { Context, Effect, Layer } from "effect"
import { Passwords } from "../auth/Passwords.ts"
import { freeDiscriminator } from "../auth/Usernames.ts"
import { BadRequest, Forbidden, NotFound } from "../model/Errors.ts"
import { newToken } from "../platform/Crypto.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { UsersRepo } from "../users/Repo.ts"
import { BotTokens } from "./BotTokens.ts"
import { type ApplicationChanges, type ApplicationRow, ApplicationsRepo } from "./Repo.ts"
import type { ApplicationCreateRequest } from "./Schemas.ts"
import { applicationView } from "./Views.ts"

/** How many applications one user may own. */
export const MAX_APPLICATIONS = 25

export const unknownApplication = () => new NotFound({ code: "UNKNOWN_APPLICATION", message: "Unknown application" })
const notOwned = () => new Forbidden({ code: "APPLICATION_NOT_OWNED", message: "You do not own this application" })

/** A bot's username made from its application's name: UsernameType allows letters, digits and `_` only. */
export const botUsername = (name: string): string => {
  const cleaned = name.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 32)
  return cleaned === "" ? "bot" : cleaned
}

/**
 * Applications and their bots. Creating one makes its bot user too, and
 * answers the client secret and the bot token: the only time either is shown
 * until it is reset.
 */
export class Applications extends Context.Service<Applications, {
  readonly create: (ownerId: string, request: ApplicationCreateRequest) => Effect.Effect<ReturnType<typeof applicationView>, BadRequest>
  /** The application, or 404 UNKNOWN_APPLICATION. */
  readonly find: (id: string) => Effect.Effect<ApplicationRow, NotFound>
  /** The application of `ownerId`: 404 when there is none, 403 APPLICATION_NOT_OWNED when it is another's. */
  readonly owned: (ownerId: string, id: string) => Effect.Effect<ApplicationRow, NotFound | Forbidden>
  readonly update: (id: string, changes: ApplicationChanges) => Effect.Effect<ApplicationRow, NotFound>
  /** A new client secret; the old one stops working. */
  readonly resetClientSecret: (id: string) => Effect.Effect<string>
}>()("guildhall/Applications") {
  static readonly layer = Layer.effect(
    Applications,
    Effect.gen(function*() {
      const repo = yield* ApplicationsRepo
      const users = yield* UsersRepo
      const passwords = yield* Passwords
      const bots = yield* BotTokens
      const snowflakes = yield* Snowflakes

      const find = Effect.fn("Applications.find")((id: string) =>
        Effect.flatMap(repo.find(id), (row) => row === undefined ? Effect.fail(unknownApplication()) : Effect.succeed(row)))

      const owned = Effect.fn("Applications.owned")((ownerId: string, id: string) =>
        Effect.flatMap(find(id), (row) => row.owner_id === ownerId ? Effect.succeed(row) : Effect.fail(notOwned())))

      const create = Effect.fn("Applications.create")(function*(ownerId: string, request: ApplicationCreateRequest) {
        if ((yield* repo.ownedBy(ownerId)).length >= MAX_APPLICATIONS) {
          return yield* new BadRequest({ code: "MAX_APPLICATIONS", message: `Maximum number of applications reached (${MAX_APPLICATIONS})` })
        }
        const id = snowflakes.next()
        const clientSecret = newToken()
        const clientSecretHash = yield* passwords.hash(clientSecret)
        const bot = yield* bots.issue(id)
        const username = botUsername(request.name)
        // Another account may take the tag between the look and the insert: look again.
        for (let tries = 0; tries < 3; tries++) {
          const discriminator = freeDiscriminator(yield* users.takenDiscriminators(username))
          if (discriminator === undefined) break
          const inserted = yield* repo.insert({
            id,
            ownerId,
            name: request.name,
            botPublic: request.bot_public ?? true,
            botRequireCodeGrant: request.bot_require_code_grant ?? false,
            redirectUris: request.redirect_uris ?? [],
            clientSecretHash,
            botTokenHash: bot.hash,
            botUsername: username,
            botDiscriminator: discriminator
          })
          if (inserted) return applicationView(yield* find(id).pipe(Effect.orDie), { clientSecret, botToken: bot.token })
        }
        return yield* new BadRequest({ code: "BOT_USER_GENERATION_FAILED", message: "No free tag for the bot's name; choose another name" })
      })

      const update = Effect.fn("Applications.update")((id: string, changes: ApplicationChanges) =>
        Effect.andThen(repo.update(id, changes), find(id)))

      const resetClientSecret = Effect.fn("Applications.resetClientSecret")(function*(id: string) {
        const secret = newToken()
        yield* repo.update(id, { client_secret_hash: yield* passwords.hash(secret) })
        return secret
      })

      return Applications.of({ create, find, owned, update, resetClientSecret })
    })
  )
}
