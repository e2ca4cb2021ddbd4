import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { GUILD_ADMIN_COLUMNS, type GuildAdminRow, toGuildAdmin } from "../guilds/GuildRows.ts"
import { isoTimestamp, isoTimestampOrNull } from "../../platform/Timestamps.ts"
import type {
  AdminUserDmChannel,
  GuildAdminResponse,
  ListUserDmChannelsRequest,
  ListUserGuildsRequest,
  UserChangeLogEntry
} from "./LookupApi.ts"

/** What a lookup query names, as production reads it (services/AdminUserLookupService.ts). */
type LookupQuery =
  | { readonly kind: "tag"; readonly username: string; readonly discriminator: string }
  | { readonly kind: "id"; readonly id: string }
  | { readonly kind: "phone"; readonly phone: string }
  | { readonly kind: "email"; readonly email: string }

/** `username#1234`, an id's digits, a `+` phone, an email; anything else names nobody here (no billing ids). */
export const parseLookupQuery = (raw: string): LookupQuery | undefined => {
  const query = raw.trim()
  const tag = /^(.+)#(\d{1,4})$/.exec(query)
  if (tag?.[1] !== undefined && tag[2] !== undefined) {
    return { kind: "tag", username: tag[1], discriminator: tag[2].padStart(4, "0") }
  }
  if (/^\d{1,20}$/.test(query)) return isSnowflake(query) ? { kind: "id", id: query } : undefined
  if (/^\+\d{1,15}$/.test(query)) return { kind: "phone", phone: query }
  if (query.includes("@")) return { kind: "email", email: query }
  return undefined
}

const isSnowflake = (digits: string) => /^\d{1,19}$/.test(digits) && BigInt(digits) < 2n ** 63n

/** `%` and `_` match themselves in a LIKE pattern built from `text`. */
const likePrefix = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

interface ChangeRow {
  readonly event_id: string
  readonly user_id: string
  readonly field: string
  readonly old_value: string | null
  readonly new_value: string | null
  readonly actor_id: string | null
  readonly event_at: Date
}

/** A page by id: `before` (or neither) newest first, `after` oldest first. */
interface Page {
  readonly before?: string | undefined
  readonly after?: string | undefined
  readonly limit?: number | undefined
}

/** The read side of the admin users routes, straight from Postgres. */
export class AdminUserLookup extends Context.Service<AdminUserLookup, {
  readonly exists: (userId: string) => Effect.Effect<boolean>
  /** The ids of the users `query` names (at most one: every kind it can be is unique). */
  readonly find: (query: string) => Effect.Effect<ReadonlyArray<string>>
  /** Ids of the users whose id, phone, email prefix or name prefix matches, by id, and how many match in all. */
  readonly search: (q: { query?: string | undefined; limit: number; offset: number }) => Effect.Effect<{ ids: ReadonlyArray<string>; total: number }>
  /** Newest first, older than `before` (an event id) when given. */
  readonly changeLog: (userId: string, limit: number, before: string | undefined) => Effect.Effect<ReadonlyArray<UserChangeLogEntry>>
  readonly dmChannels: (q: ListUserDmChannelsRequest) => Effect.Effect<ReadonlyArray<AdminUserDmChannel>>
  readonly guilds: (q: ListUserGuildsRequest) => Effect.Effect<ReadonlyArray<GuildAdminResponse>>
  /** The user's WebAuthn credentials, without their key material. */
  readonly webauthnCredentials: (userId: string) => Effect.Effect<ReadonlyArray<{ id: string; name: string; created_at: string; last_used_at: string | null }>>
}>()("guildhall/AdminUserLookup") {
  static readonly layer = Layer.effect(
    AdminUserLookup,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((r) => r.id)

      const tagCondition = (username: string, discriminator: string) =>
        sql`lower(username) = lower(${username}) AND discriminator = ${discriminator}`

      const find = Effect.fn("AdminUserLookup.find")(function*(raw: string) {
        const q = parseLookupQuery(raw)
        if (q === undefined) return []
        const where = q.kind === "tag"
          ? tagCondition(q.username, q.discriminator)
          : q.kind === "id"
          ? sql`id = ${q.id}`
          : q.kind === "phone"
          ? sql`phone = ${q.phone}`
          : sql`lower(email) = lower(${q.email})`
        return ids(yield* sql<{ id: string }>`SELECT id::text AS id FROM users WHERE ${where}`)
      }, Effect.orDie)

      const search = Effect.fn("AdminUserLookup.search")(function*(q: { query?: string | undefined; limit: number; offset: number }) {
        const text = q.query?.trim() ?? ""
        const parsed = parseLookupQuery(text)
        const tag = parsed?.kind === "tag" ? parsed : undefined
        const conditions = text === "" ? [] : [
          sql`lower(username) LIKE ${likePrefix(text)}`,
          sql`(global_name IS NOT NULL AND lower(global_name) LIKE ${likePrefix(text)})`,
          sql`(email IS NOT NULL AND lower(email) LIKE ${likePrefix(text)})`,
          ...(isSnowflake(text) ? [sql`id = ${text}`] : []),
          ...(/^\+?\d{1,15}$/.test(text) ? [sql`phone = ${text.startsWith("+") ? text : `+${text}`}`] : []),
          ...(tag === undefined ? [] : [sql`(${tagCondition(tag.username, tag.discriminator)})`])
        ]
        const where = conditions.length === 0 ? sql`` : sql`WHERE ${sql.or(conditions)}`
        const rows = yield* sql<{ id: string }>`
          SELECT id::text AS id FROM users ${where} ORDER BY id LIMIT ${q.limit} OFFSET ${q.offset}`
        const [count] = yield* sql<{ total: string }>`SELECT count(*) AS total FROM users ${where}`
        return { ids: ids(rows), total: Number(count?.total ?? 0) }
      }, Effect.orDie)

      const changeLog = Effect.fn("AdminUserLookup.changeLog")(function*(userId: string, limit: number, before: string | undefined) {
        const rows = yield* sql<ChangeRow>`
          SELECT event_id::text AS event_id, user_id::text AS user_id, field, old_value, new_value, actor_id, event_at
          FROM user_change_log
          WHERE user_id = ${userId} ${before === undefined ? sql`` : sql`AND event_id < ${before}`}
          ORDER BY event_id DESC LIMIT ${limit}`
        return rows.map((row): UserChangeLogEntry => ({
          event_id: row.event_id,
          field: row.field,
          old_value: row.old_value,
          new_value: row.new_value,
          reason: row.actor_id === null || row.actor_id === row.user_id ? "user_requested" : "admin_action",
          actor_user_id: row.actor_id,
          event_at: isoTimestamp(row.event_at)
        }))
      }, Effect.orDie)

      /** `column` bounded and ordered as `page` asks. */
      const paged = (column: string, page: Page) => {
        const c = sql.literal(column)
        return {
          where: page.after !== undefined ? sql`AND ${c} > ${page.after}` : page.before !== undefined ? sql`AND ${c} < ${page.before}` : sql``,
          order: page.after !== undefined ? sql`ORDER BY ${c} ASC` : sql`ORDER BY ${c} DESC`,
          limit: page.limit ?? 50
        }
      }

      const dmChannels = Effect.fn("AdminUserLookup.dmChannels")(function*(q: ListUserDmChannelsRequest) {
        const page = paged("r.channel_id", q)
        const rows = yield* sql<{
          channel_id: string
          type: number | null
          is_open: boolean
          last_message_id: string | null
          recipient_ids: ReadonlyArray<string>
        }>`
          SELECT r.channel_id::text AS channel_id, c.type, r.is_open, d.last_message_id::text AS last_message_id,
                 ARRAY(SELECT o.user_id::text FROM dm_recipients o WHERE o.channel_id = r.channel_id ORDER BY o.user_id) AS recipient_ids
          FROM dm_recipients r
          LEFT JOIN channels c ON c.id = r.channel_id
          LEFT JOIN dm_channels d ON d.channel_id = r.channel_id
          WHERE r.user_id = ${q.user_id} ${page.where}
          ${page.order} LIMIT ${page.limit}`
        return rows.map((row): AdminUserDmChannel => ({
          channel_id: row.channel_id,
          channel_type: row.type,
          is_open: row.is_open,
          last_message_id: row.last_message_id,
          recipient_ids: row.recipient_ids
        }))
      }, Effect.orDie)

      const guilds = Effect.fn("AdminUserLookup.guilds")(function*(q: ListUserGuildsRequest) {
        const page = paged("m.guild_id", q)
        const rows = yield* sql<GuildAdminRow>`
          SELECT ${sql.literal(GUILD_ADMIN_COLUMNS)}
          FROM guild_members m JOIN guilds g ON g.id = m.guild_id
          WHERE m.user_id = ${q.user_id} ${page.where}
          ${page.order} LIMIT ${page.limit}`
        return rows.map(toGuildAdmin)
      }, Effect.orDie)

      const webauthnCredentials = Effect.fn("AdminUserLookup.webauthnCredentials")(function*(userId: string) {
        const rows = yield* sql<{ credential_id: string; name: string; created_at: Date; last_used_at: Date | null }>`
          SELECT credential_id, name, created_at, last_used_at FROM webauthn_credentials
          WHERE user_id = ${userId} ORDER BY created_at, credential_id`
        return rows.map((row) => ({
          id: row.credential_id,
          name: row.name,
          created_at: isoTimestamp(row.created_at),
          last_used_at: isoTimestampOrNull(row.last_used_at)
        }))
      }, Effect.orDie)

      return AdminUserLookup.of({
        exists: Effect.fn("AdminUserLookup.exists")((userId: string) =>
          sql`SELECT 1 FROM users WHERE id = ${userId}`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)),
        find,
        search,
        changeLog,
        dmChannels,
        guilds,
        webauthnCredentials
      })
    })
  )
}
