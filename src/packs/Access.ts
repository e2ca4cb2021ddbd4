import { Effect } from "effect"
import { BadRequest, Forbidden, missingPermissions, NotFound } from "../model/Errors.ts"
import type { PacksRepo } from "./Repo.ts"
import type { PackSummaryResponse, PackType } from "./Schemas.ts"

/** Per user and per kind; the spec leaves them open. */
export const CREATED_LIMIT = 10
export const INSTALLED_LIMIT = 100

export const unknownPack = () => new NotFound({ code: "UNKNOWN_PACK", message: "Unknown pack" })
export const packAccessDenied = () => new Forbidden({ code: "PACK_ACCESS_DENIED", message: "You do not have this pack installed" })
export const invalidPackType = () => new BadRequest({ code: "INVALID_PACK_TYPE", message: "Pack type is emoji or sticker" })
export const maxPacks = () => new BadRequest({ code: "MAX_PACKS", message: "Maximum number of packs reached" })
export const maxPackExpressions = () =>
  new BadRequest({ code: "MAX_PACK_EXPRESSIONS", message: "Maximum number of expressions in this pack reached" })

/** Who may do what with a pack: its creator manages it, whoever installed it sees it. */
export const packAccess = (repo: PacksRepo["Service"]) => {
  /** The pack of this type, or 404 UNKNOWN_PACK (a pack of the other type is not found here either). */
  const find = (packId: string, type: PackType) =>
    Effect.flatMap(repo.find(packId), (pack) =>
      pack === undefined || pack.type !== type ? Effect.fail(unknownPack()) : Effect.succeed(pack))

  const viewable = (packId: string, type: PackType, userId: string) =>
    Effect.gen(function*() {
      const pack = yield* find(packId, type)
      if (pack.creator_id !== userId && !(yield* repo.isInstalled(packId, userId))) return yield* packAccessDenied()
      return pack
    })

  const managed = (packId: string, type: PackType, userId: string) =>
    Effect.flatMap(viewable(packId, type, userId), (pack): Effect.Effect<PackSummaryResponse, Forbidden> =>
      pack.creator_id === userId ? Effect.succeed(pack) : Effect.fail(missingPermissions()))

  return { find, viewable, managed }
}
