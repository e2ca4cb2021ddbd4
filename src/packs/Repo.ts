import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { StoredImage } from "../expressions/Uploads.ts"
import { isoTimestamp, isoTimestampOrNull } from "../platform/Timestamps.ts"
import type { PackSummaryResponse, PackType } from "./Schemas.ts"

interface PackRow {
  readonly id: string
  readonly type: PackType
  readonly name: string
  readonly description: string | null
  readonly creator_id: string
  readonly created_at: Date | string
  readonly updated_at: Date | string
  readonly installed_at?: Date | string | null
}

/** An emoji or sticker of a pack (emojis leave description and tags empty). */
export interface PackItem {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly tags: ReadonlyArray<string>
  readonly animated: boolean
}

export interface NewPackItem extends StoredImage {
  readonly name: string
  readonly description: string
  readonly tags: ReadonlyArray<string>
}

export interface PackInviteRow {
  readonly code: string
  readonly pack_id: string
  readonly inviter_id: string
  readonly max_uses: number
  readonly uses: number
  readonly temporary: boolean
  readonly created_at: Date | string
  readonly expires_at: Date | string | null
}

/** What accepting a pack invite came to. */
export type Redemption =
  | { readonly _tag: "UnknownInvite" }
  | { readonly _tag: "TooManyPacks" }
  | { readonly _tag: "Installed"; readonly invite: PackInviteRow }

export const toSummary = (row: PackRow): PackSummaryResponse => ({
  id: row.id,
  name: row.name,
  description: row.description,
  type: row.type,
  creator_id: row.creator_id,
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
  ...(row.installed_at == null ? {} : { installed_at: isoTimestamp(row.installed_at) })
})

/** Items beyond this many in one pack fail with MAX_EMOJIS / MAX_STICKERS. */
export const PACK_ITEM_LIMIT = 50

const tagsArray = (tags: ReadonlyArray<string>) => JSON.stringify(tags)

/** Packs, their items, installations and invites, in Postgres. */
export class PacksRepo extends Context.Service<PacksRepo, {
  /** Creates the pack and installs it for its creator. */
  readonly create: (pack: { id: string; type: PackType; name: string; description: string | null; creatorId: string }) => Effect.Effect<PackSummaryResponse>
  readonly find: (packId: string) => Effect.Effect<PackSummaryResponse | undefined>
  readonly created: (userId: string) => Effect.Effect<ReadonlyArray<PackSummaryResponse>>
  readonly installed: (userId: string) => Effect.Effect<ReadonlyArray<PackSummaryResponse>>
  readonly isInstalled: (packId: string, userId: string) => Effect.Effect<boolean>
  readonly install: (packId: string, userId: string) => Effect.Effect<void>
  readonly items: (packId: string) => Effect.Effect<ReadonlyArray<PackItem>>
  readonly findItem: (packId: string, itemId: string) => Effect.Effect<PackItem | undefined>
  /** Adds the items in order while the pack has room; answers the ones added. */
  readonly addItems: (packId: string, creatorId: string, items: ReadonlyArray<NewPackItem>) => Effect.Effect<ReadonlyArray<NewPackItem>>
  readonly updateItem: (itemId: string, item: Omit<PackItem, "id" | "animated">) => Effect.Effect<void>
  readonly deleteItem: (itemId: string) => Effect.Effect<void>
  readonly createInvite: (
    invite: { code: string; packId: string; inviterId: string; maxUses: number; maxAgeSeconds: number }
  ) => Effect.Effect<PackInviteRow>
  /** The pack's live invites. */
  readonly invites: (packId: string) => Effect.Effect<ReadonlyArray<PackInviteRow>>
  readonly findInvite: (code: string) => Effect.Effect<PackInviteRow | undefined>
  readonly deleteInvite: (code: string) => Effect.Effect<void>
  /**
   * Installs the pack of a live invite for the user and counts the use, unless
   * they have it already (no use counted) or already have `installedLimit`
   * packs of its kind.
   */
  readonly redeemInvite: (code: string, userId: string, installedLimit: number) => Effect.Effect<Redemption>
}>()("guildhall/PacksRepo") {
  static readonly layer = Layer.effect(
    PacksRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const PACK_COLUMNS = sql`p.id, p.type, p.name, p.description, p.creator_id, p.created_at, p.updated_at`

      const find = Effect.fn("PacksRepo.find")((packId: string) =>
        sql<PackRow>`SELECT ${PACK_COLUMNS} FROM packs p WHERE p.id = ${packId}`.pipe(
          Effect.map((rows) => (rows[0] === undefined ? undefined : toSummary(rows[0]))),
          Effect.orDie
        ))

      const create: PacksRepo["Service"]["create"] = Effect.fn("PacksRepo.create")((pack) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO packs (id, type, name, description, creator_id)
                     VALUES (${pack.id}, ${pack.type}, ${pack.name}, ${pack.description}, ${pack.creatorId})`
          yield* sql`INSERT INTO pack_installations (pack_id, user_id) VALUES (${pack.id}, ${pack.creatorId})`
          const [row] = yield* sql<PackRow>`
            SELECT ${PACK_COLUMNS}, i.installed_at FROM packs p
            JOIN pack_installations i ON i.pack_id = p.id AND i.user_id = ${pack.creatorId} WHERE p.id = ${pack.id}`
          if (row === undefined) return yield* Effect.die(new Error("a pack just inserted is missing"))
          return toSummary(row)
        })).pipe(Effect.orDie))

      const addItems: PacksRepo["Service"]["addItems"] = Effect.fn("PacksRepo.addItems")((packId, creatorId, items) =>
        sql.withTransaction(Effect.gen(function*() {
          // The pack row's lock makes count-then-insert safe against a concurrent upload.
          yield* sql`SELECT id FROM packs WHERE id = ${packId} FOR UPDATE`
          const [counted] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM pack_items WHERE pack_id = ${packId}`
          const room = Math.max(0, PACK_ITEM_LIMIT - (counted?.n ?? 0))
          const added = items.slice(0, room)
          for (const item of added) {
            yield* sql`INSERT INTO pack_items (id, pack_id, name, description, tags, animated, media_hash, creator_id)
                       VALUES (${item.id}, ${packId}, ${item.name}, ${item.description},
                               ARRAY(SELECT jsonb_array_elements_text(${tagsArray(item.tags)}::jsonb)), ${item.animated},
                               ${item.mediaHash}, ${creatorId})`
          }
          if (added.length > 0) yield* sql`UPDATE packs SET updated_at = now() WHERE id = ${packId}`
          return added
        })).pipe(Effect.orDie))

      const ITEM_COLUMNS = sql`id, name, description, tags, animated`
      /** An invite past its expiry or out of uses no longer resolves, lists or installs. */
      const LIVE_INVITE = sql`(expires_at IS NULL OR expires_at > now()) AND (max_uses = 0 OR uses < max_uses)`

      const redeemInvite: PacksRepo["Service"]["redeemInvite"] = Effect.fn("PacksRepo.redeemInvite")((code, userId, installedLimit) =>
        sql.withTransaction(Effect.gen(function*() {
          // The invite row's lock keeps two redemptions of its last use from both passing.
          const [invite] = yield* sql<PackInviteRow>`SELECT * FROM pack_invites WHERE code = ${code} AND ${LIVE_INVITE} FOR UPDATE`
          if (invite === undefined) return { _tag: "UnknownInvite" } as const
          const [has] = yield* sql<{ readonly installed: boolean; readonly same_kind: number }>`
            SELECT EXISTS (SELECT 1 FROM pack_installations WHERE pack_id = ${invite.pack_id} AND user_id = ${userId}) AS installed,
                   (SELECT count(*)::int FROM pack_installations i JOIN packs p ON p.id = i.pack_id
                     WHERE i.user_id = ${userId} AND p.type = (SELECT type FROM packs WHERE id = ${invite.pack_id})) AS same_kind`
          if (has?.installed === true) return { _tag: "Installed", invite } as const
          if ((has?.same_kind ?? 0) >= installedLimit) return { _tag: "TooManyPacks" } as const
          yield* sql`INSERT INTO pack_installations (pack_id, user_id) VALUES (${invite.pack_id}, ${userId})`
          const [used] = yield* sql<PackInviteRow>`UPDATE pack_invites SET uses = uses + 1 WHERE code = ${code} RETURNING *`
          return { _tag: "Installed", invite: used ?? invite } as const
        })).pipe(Effect.orDie))

      return PacksRepo.of({
        create,
        find,
        created: Effect.fn("PacksRepo.created")((userId) =>
          sql<PackRow>`SELECT ${PACK_COLUMNS}, i.installed_at FROM packs p
                       LEFT JOIN pack_installations i ON i.pack_id = p.id AND i.user_id = ${userId}
                       WHERE p.creator_id = ${userId} ORDER BY p.id`.pipe(Effect.map((rows) => rows.map(toSummary)), Effect.orDie)),
        installed: Effect.fn("PacksRepo.installed")((userId) =>
          sql<PackRow>`SELECT ${PACK_COLUMNS}, i.installed_at FROM pack_installations i JOIN packs p ON p.id = i.pack_id
                       WHERE i.user_id = ${userId} ORDER BY i.installed_at, p.id`.pipe(
            Effect.map((rows) => rows.map(toSummary)),
            Effect.orDie
          )),
        isInstalled: Effect.fn("PacksRepo.isInstalled")((packId, userId) =>
          sql`SELECT 1 FROM pack_installations WHERE pack_id = ${packId} AND user_id = ${userId}`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          )),
        install: Effect.fn("PacksRepo.install")((packId, userId) =>
          sql`INSERT INTO pack_installations (pack_id, user_id) VALUES (${packId}, ${userId}) ON CONFLICT DO NOTHING`.pipe(
            Effect.asVoid,
            Effect.orDie
          )),
        items: Effect.fn("PacksRepo.items")((packId) =>
          sql<PackItem>`SELECT ${ITEM_COLUMNS} FROM pack_items WHERE pack_id = ${packId} ORDER BY id`.pipe(Effect.orDie)),
        findItem: Effect.fn("PacksRepo.findItem")((packId, itemId) =>
          sql<PackItem>`SELECT ${ITEM_COLUMNS} FROM pack_items WHERE pack_id = ${packId} AND id = ${itemId}`.pipe(
            Effect.map((rows) => rows[0]),
            Effect.orDie
          )),
        addItems,
        updateItem: Effect.fn("PacksRepo.updateItem")((itemId, item) =>
          sql`UPDATE pack_items SET name = ${item.name}, description = ${item.description},
                     tags = ARRAY(SELECT jsonb_array_elements_text(${tagsArray(item.tags)}::jsonb)) WHERE id = ${itemId}`.pipe(
            Effect.asVoid,
            Effect.orDie
          )),
        deleteItem: Effect.fn("PacksRepo.deleteItem")((itemId) =>
          sql`DELETE FROM pack_items WHERE id = ${itemId}`.pipe(Effect.asVoid, Effect.orDie)),
        createInvite: Effect.fn("PacksRepo.createInvite")(function*(invite) {
          const expires = invite.maxAgeSeconds === 0 ? null : new Date(Date.now() + invite.maxAgeSeconds * 1000).toISOString()
          const [row] = yield* sql<PackInviteRow>`
            INSERT INTO pack_invites (code, pack_id, inviter_id, max_uses, expires_at)
            VALUES (${invite.code}, ${invite.packId}, ${invite.inviterId}, ${invite.maxUses}, ${expires}) RETURNING *`
          if (row === undefined) return yield* Effect.die(new Error("an invite just inserted is missing"))
          return row
        }, Effect.orDie),
        invites: Effect.fn("PacksRepo.invites")((packId) =>
          sql<PackInviteRow>`SELECT * FROM pack_invites WHERE pack_id = ${packId} AND ${LIVE_INVITE} ORDER BY created_at`.pipe(Effect.orDie)),
        findInvite: Effect.fn("PacksRepo.findInvite")((code) =>
          sql<PackInviteRow>`SELECT * FROM pack_invites WHERE code = ${code} AND ${LIVE_INVITE}`.pipe(
            Effect.map((rows) => rows[0]),
            Effect.orDie
          )),
        deleteInvite: Effect.fn("PacksRepo.deleteInvite")((code) =>
          sql`DELETE FROM pack_invites WHERE code = ${code}`.pipe(Effect.asVoid, Effect.orDie)),
        redeemInvite
      })
    })
  )
}

export const inviteExpiry = (row: PackInviteRow) => isoTimestampOrNull(row.expires_at)
