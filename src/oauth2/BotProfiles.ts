import { Context, Effect, Layer } from "effect"
import { formatDiscriminator, freeDiscriminator } from "../auth/Usernames.ts"
import { BadRequest, type FieldError, invalidField, NotFound, type Unavailable } from "../model/Errors.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { presentChanges, updateAccount } from "../../shards/user/operations/Account.ts"
import { imageFieldHash } from "../users/Images.ts"
import { UsersRepo } from "../users/Repo.ts"
import { type ApplicationRow, ApplicationsRepo } from "./Repo.ts"
import type { BotProfileUpdateRequest } from "./Schemas.ts"

/** BotFlags a bot may carry: FRIENDLY_BOT and FRIENDLY_BOT_MANUAL_APPROVAL. */
const BOT_FLAGS = 16 | 32

const tagTaken = () => invalidField("username", "TAG_ALREADY_TAKEN", "This username and discriminator are taken")

/** Empty or blank text clears a field like null. */
const cleared = (text: string | null | undefined) =>
  text === undefined ? undefined : text === null || text.trim() === "" ? null : text

/**
 * PATCH /oauth2/applications/{id}/bot: the bot user's profile and the bot
 * flags. A bot is not bound by premium: it may name its discriminator, and a
 * new username keeps the current one when that tag is free (else a random
 * free one), as people's usernames do.
 */
export class BotProfiles extends Context.Service<BotProfiles, {
  readonly update: (row: ApplicationRow, request: BotProfileUpdateRequest) => Effect.Effect<void, BadRequest | Unavailable>
}>()("guildhall/BotProfiles") {
  static readonly layer = Layer.effect(
    BotProfiles,
    Effect.gen(function*() {
      const users = yield* UsersRepo
      const applications = yield* ApplicationsRepo
      const userActors = yield* UserActors

      /** The discriminator of the new tag: the named or current one when free, else a random free one. */
      const settleTag = (row: ApplicationRow, username: string, named: string | undefined) =>
        Effect.gen(function*() {
          const wanted = named ?? row.discriminator
          if (username.toLowerCase() === row.username.toLowerCase() && wanted === row.discriminator) return wanted
          const taken = yield* users.takenDiscriminators(username)
          if (!taken.has(wanted)) return wanted
          const free = named === undefined ? freeDiscriminator(taken) : undefined
          return free === undefined ? yield* tagTaken() : free
        })

      const update = Effect.fn("BotProfiles.update")(function*(row: ApplicationRow, request: BotProfileUpdateRequest) {
        if (request.bot_flags !== undefined && (request.bot_flags & ~BOT_FLAGS) !== 0) {
          return yield* new BadRequest({ code: "INVALID_BOT_FLAG", message: "Bot flags are FRIENDLY_BOT (16) and FRIENDLY_BOT_MANUAL_APPROVAL (32)" })
        }
        const problems: Array<FieldError> = []
        const image = imageFieldHash(problems)
        const avatar = image(request.avatar, "avatar")
        const banner = image(request.banner, "banner")
        if (problems.length > 0) return yield* new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: problems })

        const named = request.discriminator === undefined ? undefined : formatDiscriminator(Number(request.discriminator))
        const tag = request.username === undefined && named === undefined
          ? {}
          : { username: request.username ?? row.username, discriminator: yield* settleTag(row, request.username ?? row.username, named) }
        const changes = presentChanges({ ...tag, avatar, banner, bio: cleared(request.bio) })
        // Through the bot user's actor, as a person's own profile change goes: its sessions hear USER_UPDATE.
        if (Object.keys(changes).length > 0) {
          yield* userActors.write(row.id, updateAccount, { changes }, { actorId: row.owner_id }).pipe(
            // The unique index refused the tag: another account took it meanwhile.
            Effect.catchIf((e) => e instanceof BadRequest && e.code === "CONFLICT", () => tagTaken()),
            // An application's bot user goes only with the application.
            Effect.catchIf((e) => e instanceof NotFound, Effect.die)
          )
        }
        if (request.bot_flags !== undefined) yield* applications.update(row.id, { bot_flags: request.bot_flags })
      })

      return BotProfiles.of({ update })
    })
  )
}
