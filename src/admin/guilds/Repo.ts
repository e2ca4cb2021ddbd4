import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { GuildAdminResponse } from "../../model/AdminGuilds.ts"
import { GUILD_ADMIN_COLUMNS, type GuildAdminRow, toGuildAdmin } from "./GuildRows.ts"

/** `%` and `_` match themselves in a LIKE pattern built from `text`. */
const likeAnywhere = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** What the admin guild routes read straight from Postgres (every guild write is persisted before it answers). */
export class AdminGuildsRepo extends Context.Service<AdminGuildsRepo, {
  /** Guilds whose name holds `query` or whose id is it, by id, and how many match in all. */
  readonly search: (q: { query?: string | undefined; limit: number; offset: number }) => Effect.Effect<{
    guilds: ReadonlyArray<GuildAdminResponse>
    total: number
  }>
}>()("guildhall/AdminGuildsRepo") {
  static readonly layer = Layer.effect(
    AdminGuildsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const search = Effect.fn("AdminGuildsRepo.search")(function*(q: { query?: string | undefined; limit: number; offset: number }) {
        const query = q.query?.trim() ?? ""
        const where = query === ""
          ? sql`TRUE`
          : sql`(lower(g.name) LIKE ${likeAnywhere(query)} OR g.id::text = ${query})`
        const rows = yield* sql<GuildAdminRow & { total: string }>`
          SELECT ${sql.literal(GUILD_ADMIN_COLUMNS)}, count(*) OVER () AS total
          FROM guilds g WHERE ${where}
          ORDER BY g.id LIMIT ${q.limit} OFFSET ${q.offset}`
        const total = rows[0] === undefined
          ? Number((yield* sql<{ n: string }>`SELECT count(*) AS n FROM guilds g WHERE ${where}`)[0]?.n ?? 0)
          : Number(rows[0].total)
        return {
          guilds: rows.map(toGuildAdmin),
          total
        }
      }, Effect.orDie)
      return { search }
    })
  )
}
