import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { isoTimestamp, isoTimestampOrNull } from "../platform/Timestamps.ts"
import type {
  DiscoveryApplicationPatchRequest,
  DiscoveryApplicationRequest,
  DiscoveryApplicationResponse,
  DiscoveryGuild,
  DiscoverySearchQuery
} from "./Schemas.ts"

interface ApplicationRow {
  readonly guild_id: string
  readonly status: string
  readonly description: string
  readonly category_type: number
  readonly primary_language: string | null
  readonly custom_tags: ReadonlyArray<string>
  readonly applied_at: Date | string
  readonly reviewed_at: Date | string | null
  readonly review_reason: string | null
  readonly removed_at: Date | string | null
  readonly removal_reason: string | null
  readonly nsfw_level: number
}

const toApplication = (row: ApplicationRow): DiscoveryApplicationResponse => ({
  guild_id: String(row.guild_id),
  guild_nsfw_level: row.nsfw_level,
  status: row.status,
  description: row.description,
  category_type: row.category_type,
  primary_language: row.primary_language,
  custom_tags: row.custom_tags,
  applied_at: isoTimestamp(row.applied_at),
  reviewed_at: isoTimestampOrNull(row.reviewed_at),
  review_reason: row.review_reason,
  removed_at: isoTimestampOrNull(row.removed_at),
  removal_reason: row.removal_reason
})

interface ListedRow extends Omit<DiscoveryGuild, "id" | "member_count" | "online_count"> {
  readonly id: string
  readonly member_count: number | string
  readonly total: number | string
}

/** Applications and the listing, in Postgres: discovery reads across guilds, which no one actor holds. */
export class DiscoveryRepo extends Context.Service<DiscoveryRepo, {
  readonly application: (guildId: string) => Effect.Effect<DiscoveryApplicationResponse | undefined>
  /** False when the guild has applied already. */
  readonly apply: (guildId: string, request: DiscoveryApplicationRequest) => Effect.Effect<boolean>
  /** Changes a pending application; undefined when there is none pending. */
  readonly amend: (guildId: string, patch: DiscoveryApplicationPatchRequest) => Effect.Effect<DiscoveryApplicationResponse | undefined>
  readonly memberCount: (guildId: string) => Effect.Effect<number>
  readonly isListed: (guildId: string) => Effect.Effect<boolean>
  readonly search: (query: DiscoverySearchQuery) => Effect.Effect<{ guilds: ReadonlyArray<DiscoveryGuild>; total: number }>
  /** Applications of one status for staff, oldest first, after the application of the guild `cursor`. */
  readonly list: (query: { status: string; limit: number; cursor: string | undefined }) => Effect.Effect<ReadonlyArray<DiscoveryApplicationResponse>>
}>()("guildhall/DiscoveryRepo") {
  static readonly layer = Layer.effect(
    DiscoveryRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const application = Effect.fn("DiscoveryRepo.application")((guildId: string) =>
        sql<ApplicationRow>`SELECT d.*, g.nsfw_level FROM guild_discovery d JOIN guilds g ON g.id = d.guild_id
                            WHERE d.guild_id = ${guildId}`.pipe(
          Effect.map((rows) => (rows[0] === undefined ? undefined : toApplication(rows[0]))),
          Effect.orDie
        ))

      const apply = Effect.fn("DiscoveryRepo.apply")((guildId: string, request: DiscoveryApplicationRequest) =>
        sql`INSERT INTO guild_discovery (guild_id, description, category_type, primary_language, custom_tags)
            VALUES (${guildId}, ${request.description}, ${request.category_type}, ${request.primary_language ?? null},
                    ${[...(request.custom_tags ?? [])]}::text[])
            ON CONFLICT (guild_id) DO NOTHING RETURNING guild_id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie))

      const amend = Effect.fn("DiscoveryRepo.amend")(function*(guildId: string, patch: DiscoveryApplicationPatchRequest) {
        const columns = {
          ...(patch.description === undefined ? {} : { description: patch.description }),
          ...(patch.category_type === undefined ? {} : { category_type: patch.category_type }),
          ...(patch.primary_language === undefined ? {} : { primary_language: patch.primary_language })
        }
        const updated = yield* sql`UPDATE guild_discovery SET applied_at = applied_at
                                   ${Object.keys(columns).length > 0 ? sql`, ${sql.update(columns)}` : sql``}
                                   ${patch.custom_tags === undefined ? sql`` : sql`, custom_tags = ${[...patch.custom_tags]}::text[]`}
                                   WHERE guild_id = ${guildId} AND status = 'pending' RETURNING guild_id`
        return updated.length === 0 ? undefined : yield* application(guildId)
      }, Effect.orDie)

      const search = Effect.fn("DiscoveryRepo.search")(function*(query: DiscoverySearchQuery) {
        const words = query.query?.trim() ?? ""
        const text = words === ""
          ? sql`TRUE`
          : sql`to_tsvector('simple', g.name || ' ' || d.description || ' ' || array_to_string(d.custom_tags, ' '))
                @@ plainto_tsquery('simple', ${words})`
        const rank = words === ""
          ? sql`0`
          : sql`ts_rank(to_tsvector('simple', g.name || ' ' || d.description || ' ' || array_to_string(d.custom_tags, ' ')),
                        plainto_tsquery('simple', ${words}))`
        // No presences yet: online_count is 0, so sorting by it falls back to members.
        const order = query.sort_by === "relevance" && words !== "" ? sql`rank DESC, member_count DESC` : sql`member_count DESC`
        const rows = yield* sql<ListedRow>`
          SELECT g.id::text AS id, g.name, g.icon, d.description, d.category_type, d.primary_language, d.custom_tags,
                 g.features, g.verification_level,
                 (SELECT count(*) FROM guild_members m WHERE m.guild_id = g.id) AS member_count,
                 ${rank} AS rank, count(*) OVER () AS total
          FROM guild_discovery d JOIN guilds g ON g.id = d.guild_id
          WHERE d.status = 'approved' AND ${text}
            AND ${query.category === undefined ? sql`TRUE` : sql`d.category_type = ${query.category}`}
            AND ${query.language === undefined ? sql`TRUE` : sql`d.primary_language = ${query.language}`}
            AND ${query.tag === undefined ? sql`TRUE` : sql`${query.tag} = ANY (d.custom_tags)`}
          ORDER BY ${order}, g.id
          LIMIT ${query.limit ?? 48} OFFSET ${query.offset ?? 0}`
        return {
          total: Number(rows[0]?.total ?? 0),
          guilds: rows.map(({ total: _total, member_count, ...row }): DiscoveryGuild => ({
            id: row.id,
            name: row.name,
            icon: row.icon,
            description: row.description,
            category_type: row.category_type,
            primary_language: row.primary_language,
            custom_tags: row.custom_tags,
            member_count: Number(member_count),
            online_count: 0,
            features: row.features,
            verification_level: row.verification_level
          }))
        }
      }, Effect.orDie)

      const list = Effect.fn("DiscoveryRepo.list")(function*(query: { status: string; limit: number; cursor: string | undefined }) {
        const after = query.cursor === undefined
          ? sql`TRUE`
          : sql`(d.applied_at, d.guild_id) > (SELECT applied_at, guild_id FROM guild_discovery WHERE guild_id = ${query.cursor})`
        const rows = yield* sql<ApplicationRow>`SELECT d.*, g.nsfw_level FROM guild_discovery d JOIN guilds g ON g.id = d.guild_id
                                                WHERE d.status = ${query.status} AND ${after}
                                                ORDER BY d.applied_at, d.guild_id LIMIT ${query.limit}`
        return rows.map(toApplication)
      }, Effect.orDie)

      return DiscoveryRepo.of({
        application,
        list,
        apply,
        amend,
        memberCount: Effect.fn("DiscoveryRepo.memberCount")((guildId) =>
          sql<{ n: number | string }>`SELECT count(*) AS n FROM guild_members WHERE guild_id = ${guildId}`.pipe(
            Effect.map((rows) => Number(rows[0]?.n ?? 0)),
            Effect.orDie
          )),
        isListed: Effect.fn("DiscoveryRepo.isListed")((guildId) =>
          sql`SELECT 1 FROM guild_discovery WHERE guild_id = ${guildId} AND status = 'approved'`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          )),
        search
      })
    })
  )
}
