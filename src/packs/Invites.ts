import { Context, Effect, Layer } from "effect"
import { type BadRequest, type Forbidden, missingPermissions, type Unauthorized, unauthorized } from "../model/Errors.ts"
import { isoTimestamp } from "../platform/Timestamps.ts"
import { UsersRepo } from "../users/Repo.ts"
import { toUserPartial } from "../model/Users.ts"
import { INSTALLED_LIMIT, maxPacks } from "./Access.ts"
import { inviteExpiry, type PackInviteRow, PacksRepo } from "./Repo.ts"
import type { PackInviteMetadataResponse, PackInviteResponse, PackSummaryResponse } from "./Schemas.ts"

/**
 * Pack invites as the invite routes show them. A pack reaches anyone but its
 * creator this way: whoever holds a live code sees the pack at
 * GET /invites/{code} and installs it with POST /invites/{code}.
 */
export class PackInvites extends Context.Service<PackInvites, {
  /** The invite as its pack's creator lists it, with its uses. */
  readonly metadata: (pack: PackSummaryResponse, row: PackInviteRow) => Effect.Effect<PackInviteMetadataResponse, Unauthorized>
  /** The live invite under `code`, or undefined. */
  readonly show: (code: string) => Effect.Effect<PackInviteResponse | undefined, Unauthorized>
  /** Installs the pack of the live invite under `code` for the user; undefined when there is none. */
  readonly accept: (code: string, userId: string) => Effect.Effect<PackInviteResponse | undefined, BadRequest | Unauthorized>
  /** Deletes the live invite under `code`, which only its pack's creator may; false when there is none. */
  readonly revoke: (code: string, userId: string) => Effect.Effect<boolean, Forbidden>
}>()("guildhall/PackInvites") {
  static readonly layer = Layer.effect(
    PackInvites,
    Effect.gen(function*() {
      const repo = yield* PacksRepo
      const users = yield* UsersRepo

      const userOf = (userId: string) =>
        Effect.flatMap(users.findById(userId), (row) => (row === undefined ? Effect.fail(unauthorized()) : Effect.succeed(toUserPartial(row))))

      const view = (pack: PackSummaryResponse, row: PackInviteRow) =>
        Effect.gen(function*() {
          const creator = yield* userOf(pack.creator_id)
          const inviter = row.inviter_id === pack.creator_id ? creator : yield* userOf(row.inviter_id)
          const { installed_at: _, ...summary } = pack
          return {
            code: row.code,
            type: pack.type === "emoji" ? 2 as const : 3 as const,
            pack: { ...summary, creator },
            inviter,
            expires_at: inviteExpiry(row),
            temporary: row.temporary
          }
        })

      /** Undefined when the pack went away since the row was read. */
      const viewOf = (row: PackInviteRow) =>
        Effect.flatMap(repo.find(row.pack_id), (pack) => (pack === undefined ? Effect.succeed(undefined) : view(pack, row)))

      return PackInvites.of({
        metadata: Effect.fn("PackInvites.metadata")((pack, row) =>
          Effect.map(view(pack, row), (shown) => ({
            ...shown,
            created_at: isoTimestamp(row.created_at),
            uses: row.uses,
            max_uses: row.max_uses
          }))),
        show: Effect.fn("PackInvites.show")((code) =>
          Effect.flatMap(repo.findInvite(code), (row) => (row === undefined ? Effect.succeed(undefined) : viewOf(row)))),
        accept: Effect.fn("PackInvites.accept")((code, userId) =>
          Effect.flatMap(repo.redeemInvite(code, userId, INSTALLED_LIMIT), (redemption) => {
            switch (redemption._tag) {
              case "UnknownInvite":
                return Effect.succeed(undefined)
              case "TooManyPacks":
                return Effect.fail(maxPacks())
              case "Installed":
                return viewOf(redemption.invite)
            }
          })),
        revoke: Effect.fn("PackInvites.revoke")(function*(code, userId) {
          const row = yield* repo.findInvite(code)
          const pack = row === undefined ? undefined : yield* repo.find(row.pack_id)
          if (pack === undefined) return false
          if (pack.creator_id !== userId) return yield* missingPermissions()
          yield* repo.deleteInvite(code)
          return true
        })
      })
    })
  )
}
