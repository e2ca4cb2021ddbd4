import type { GuildAdminResponse } from "../../model/AdminGuilds.ts"

/** The columns of a GuildAdminResponse from `guilds g`, its member count included. */
export const GUILD_ADMIN_COLUMNS = `g.id::text AS id, g.name, g.features, g.owner_id::text AS owner_id, g.icon, g.banner,
  (SELECT count(*)::int FROM guild_members n WHERE n.guild_id = g.id) AS member_count`

export interface GuildAdminRow {
  readonly id: string
  readonly name: string
  readonly features: ReadonlyArray<string>
  readonly owner_id: string
  readonly icon: string | null
  readonly banner: string | null
  readonly member_count: number
}

export const toGuildAdmin = (row: GuildAdminRow): GuildAdminResponse => ({
  id: row.id,
  name: row.name,
  features: row.features,
  owner_id: row.owner_id,
  icon: row.icon,
  banner: row.banner,
  member_count: Number(row.member_count)
})
