import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Snowflakes } from "../platform/Snowflake.ts"
import { isoTimestamp, isoTimestampOrNull } from "../platform/Timestamps.ts"
import { ReportStatus } from "./Categories.ts"

/** One message of a report's evidence, as it was when reported (and as the admin view shows it). */
export const ContextMessage = Schema.Struct({
  id: Schema.String,
  channel_id: Schema.String,
  guild_id: Schema.NullOr(Schema.String),
  content: Schema.String,
  timestamp: Schema.String,
  attachments: Schema.Array(Schema.Struct({ filename: Schema.String, url: Schema.String })),
  author_id: Schema.String,
  author_username: Schema.String,
  author_discriminator: Schema.String
})
export type ContextMessage = typeof ContextMessage.Type
const decodeContext = Schema.decodeUnknownSync(Schema.NullOr(Schema.Array(ContextMessage)))

/** What a new report holds; absent fields are null. */
export interface NewReport {
  readonly reportType: number
  readonly category: string
  readonly additionalInfo?: string | undefined
  readonly reporterId?: string | undefined
  readonly reporterEmail?: string | null | undefined
  readonly reporterFullLegalName?: string | undefined
  readonly reporterCountryOfResidence?: string | undefined
  readonly reportedUserId?: string | undefined
  readonly reportedUserAvatarHash?: string | null | undefined
  readonly reportedGuildId?: string | undefined
  readonly reportedGuildName?: string | undefined
  readonly reportedGuildInviteCode?: string | undefined
  readonly reportedMessageId?: string | undefined
  readonly reportedChannelId?: string | undefined
  readonly reportedChannelName?: string | null | undefined
  readonly guildContextId?: string | undefined
  readonly messageContext?: ReadonlyArray<ContextMessage> | undefined
}

/** A stored report, with the current names of its reporter and reported user. */
export interface Report {
  readonly id: string
  readonly reportType: number
  readonly status: number
  readonly category: string
  readonly additionalInfo: string | null
  readonly reporterId: string | null
  readonly reporterEmail: string | null
  readonly reporterFullLegalName: string | null
  readonly reporterCountryOfResidence: string | null
  readonly reporterUsername: string | null
  readonly reporterDiscriminator: string | null
  readonly reportedUserId: string | null
  readonly reportedUserUsername: string | null
  readonly reportedUserDiscriminator: string | null
  readonly reportedUserAvatarHash: string | null
  readonly reportedGuildId: string | null
  readonly reportedGuildName: string | null
  readonly reportedGuildInviteCode: string | null
  readonly reportedMessageId: string | null
  readonly reportedChannelId: string | null
  readonly reportedChannelName: string | null
  readonly guildContextId: string | null
  readonly messageContext: ReadonlyArray<ContextMessage> | null
  readonly reportedAt: string
  readonly resolvedAt: string | null
  readonly resolvedByAdminId: string | null
  readonly publicComment: string | null
}

interface Row {
  readonly id: string
  readonly report_type: number
  readonly status: number
  readonly category: string
  readonly additional_info: string | null
  readonly reporter_id: string | null
  readonly reporter_email: string | null
  readonly reporter_full_legal_name: string | null
  readonly reporter_country_of_residence: string | null
  readonly reporter_username: string | null
  readonly reporter_discriminator: string | null
  readonly reported_user_id: string | null
  readonly reported_user_username: string | null
  readonly reported_user_discriminator: string | null
  readonly reported_user_avatar_hash: string | null
  readonly reported_guild_id: string | null
  readonly reported_guild_name: string | null
  readonly reported_guild_invite_code: string | null
  readonly reported_message_id: string | null
  readonly reported_channel_id: string | null
  readonly reported_channel_name: string | null
  readonly guild_context_id: string | null
  readonly message_context: unknown
  readonly reported_at: Date | string
  readonly resolved_at: Date | string | null
  readonly resolved_by_admin_id: string | null
  readonly public_comment: string | null
}

const toReport = (row: Row): Report => ({
  id: row.id,
  reportType: row.report_type,
  status: row.status,
  category: row.category,
  additionalInfo: row.additional_info,
  reporterId: row.reporter_id,
  reporterEmail: row.reporter_email,
  reporterFullLegalName: row.reporter_full_legal_name,
  reporterCountryOfResidence: row.reporter_country_of_residence,
  reporterUsername: row.reporter_username,
  reporterDiscriminator: row.reporter_discriminator,
  reportedUserId: row.reported_user_id,
  reportedUserUsername: row.reported_user_username,
  reportedUserDiscriminator: row.reported_user_discriminator,
  reportedUserAvatarHash: row.reported_user_avatar_hash,
  reportedGuildId: row.reported_guild_id,
  reportedGuildName: row.reported_guild_name,
  reportedGuildInviteCode: row.reported_guild_invite_code,
  reportedMessageId: row.reported_message_id,
  reportedChannelId: row.reported_channel_id,
  reportedChannelName: row.reported_channel_name,
  guildContextId: row.guild_context_id,
  messageContext: decodeContext(row.message_context),
  reportedAt: isoTimestamp(row.reported_at),
  resolvedAt: isoTimestampOrNull(row.resolved_at),
  resolvedByAdminId: row.resolved_by_admin_id,
  publicComment: row.public_comment
})

/** The filters of POST /admin/reports/search and /list. */
export interface ReportSearch {
  readonly query?: string | undefined
  readonly category?: string | undefined
  readonly guildContextId?: string | undefined
  readonly reportedChannelId?: string | undefined
  readonly reportedGuildId?: string | undefined
  readonly reportedUserId?: string | undefined
  readonly reporterId?: string | undefined
  readonly resolvedByAdminId?: string | undefined
  readonly reportType?: number | undefined
  readonly status?: number | undefined
  readonly sortBy?: "reported_at" | "resolved_at" | "id" | undefined
  readonly sortOrder?: "asc" | "desc" | undefined
  readonly limit: number
  readonly offset: number
}

export type Resolution = { readonly resolved: Report } | "unknown" | "already_resolved"

/** The reports in Postgres. */
export class ReportsRepo extends Context.Service<ReportsRepo, {
  readonly create: (report: NewReport) => Effect.Effect<Report>
  readonly byId: (id: string) => Effect.Effect<Report | undefined>
  readonly search: (filters: ReportSearch) => Effect.Effect<{ readonly reports: ReadonlyArray<Report>; readonly total: number }>
  /** Resolves a pending report; resolving twice is refused, not repeated. */
  readonly resolve: (id: string, adminId: string, publicComment: string | null, reason: string | null) => Effect.Effect<Resolution>
  /** How many reports the user made since `since`. */
  readonly madeSince: (reporterId: string, since: Date) => Effect.Effect<number>
}>()("guildhall/ReportsRepo") {
  static readonly layer = Layer.effect(
    ReportsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const snowflakes = yield* Snowflakes

      const select = sql`
        SELECT r.id::text AS id, r.report_type, r.status, r.category, r.additional_info,
          r.reporter_id::text AS reporter_id, r.reporter_email, r.reporter_full_legal_name, r.reporter_country_of_residence,
          ru.username AS reporter_username, ru.discriminator AS reporter_discriminator,
          r.reported_user_id::text AS reported_user_id, tu.username AS reported_user_username,
          tu.discriminator AS reported_user_discriminator, r.reported_user_avatar_hash,
          r.reported_guild_id::text AS reported_guild_id, r.reported_guild_name, r.reported_guild_invite_code,
          r.reported_message_id::text AS reported_message_id, r.reported_channel_id::text AS reported_channel_id,
          r.reported_channel_name, r.guild_context_id::text AS guild_context_id, r.message_context,
          r.reported_at, r.resolved_at, r.resolved_by_admin_id::text AS resolved_by_admin_id, r.public_comment
        FROM reports r
        LEFT JOIN users ru ON ru.id = r.reporter_id
        LEFT JOIN users tu ON tu.id = r.reported_user_id`

      const byId = Effect.fn("ReportsRepo.byId")(function*(id: string) {
        const rows = yield* sql<Row>`${select} WHERE r.id = ${id}`
        const row = rows[0]
        return row === undefined ? undefined : toReport(row)
      }, Effect.orDie)

      const create = Effect.fn("ReportsRepo.create")(function*(r: NewReport) {
        const id = snowflakes.next()
        const context = r.messageContext === undefined ? null : JSON.stringify(r.messageContext)
        yield* sql`
          INSERT INTO reports (id, report_type, category, additional_info, reporter_id, reporter_email,
            reporter_full_legal_name, reporter_country_of_residence, reported_user_id, reported_user_avatar_hash,
            reported_guild_id, reported_guild_name, reported_guild_invite_code, reported_message_id,
            reported_channel_id, reported_channel_name, guild_context_id, message_context)
          VALUES (${id}, ${r.reportType}, ${r.category}, ${r.additionalInfo ?? null}, ${r.reporterId ?? null},
            ${r.reporterEmail ?? null}, ${r.reporterFullLegalName ?? null}, ${r.reporterCountryOfResidence ?? null},
            ${r.reportedUserId ?? null}, ${r.reportedUserAvatarHash ?? null}, ${r.reportedGuildId ?? null},
            ${r.reportedGuildName ?? null}, ${r.reportedGuildInviteCode ?? null}, ${r.reportedMessageId ?? null},
            ${r.reportedChannelId ?? null}, ${r.reportedChannelName ?? null}, ${r.guildContextId ?? null},
            ${context}::jsonb)`
        const stored = yield* byId(id)
        if (stored === undefined) return yield* Effect.die(new Error("report insert not found"))
        return stored
      }, Effect.orDie)

      const search = Effect.fn("ReportsRepo.search")(function*(f: ReportSearch) {
        const like = f.query === undefined ? undefined : `%${f.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
        const conditions = [
          f.category === undefined ? undefined : sql`r.category = ${f.category}`,
          f.guildContextId === undefined ? undefined : sql`r.guild_context_id = ${f.guildContextId}`,
          f.reportedChannelId === undefined ? undefined : sql`r.reported_channel_id = ${f.reportedChannelId}`,
          f.reportedGuildId === undefined ? undefined : sql`r.reported_guild_id = ${f.reportedGuildId}`,
          f.reportedUserId === undefined ? undefined : sql`r.reported_user_id = ${f.reportedUserId}`,
          f.reporterId === undefined ? undefined : sql`r.reporter_id = ${f.reporterId}`,
          f.resolvedByAdminId === undefined ? undefined : sql`r.resolved_by_admin_id = ${f.resolvedByAdminId}`,
          f.reportType === undefined ? undefined : sql`r.report_type = ${f.reportType}`,
          f.status === undefined ? undefined : sql`r.status = ${f.status}`,
          // Free text: what the reporter wrote, the names kept, the evidence's content, an id.
          like === undefined ? undefined : sql`(r.additional_info ILIKE ${like} OR r.category ILIKE ${like}
            OR r.reported_guild_name ILIKE ${like} OR r.reported_channel_name ILIKE ${like}
            OR r.reporter_email ILIKE ${like} OR r.public_comment ILIKE ${like}
            OR r.message_context::text ILIKE ${like} OR r.id::text = ${f.query ?? ""}
            OR ru.username ILIKE ${like} OR tu.username ILIKE ${like})`
        ].filter((c) => c !== undefined)
        const where = conditions.length === 0 ? sql`` : sql`WHERE ${sql.and(conditions)}`
        const column = f.sortBy === "resolved_at" ? sql`r.resolved_at` : f.sortBy === "id" ? sql`r.id` : sql`r.reported_at`
        const direction = f.sortOrder === "asc" ? sql`ASC` : sql`DESC`
        const rows = yield* sql<Row>`${select} ${where}
          ORDER BY ${column} ${direction} NULLS LAST, r.id ${direction} LIMIT ${f.limit} OFFSET ${f.offset}`
        const [count] = yield* sql<{ total: string }>`
          SELECT count(*) AS total FROM reports r LEFT JOIN users ru ON ru.id = r.reporter_id
          LEFT JOIN users tu ON tu.id = r.reported_user_id ${where}`
        return { reports: rows.map(toReport), total: Number(count?.total ?? 0) }
      }, Effect.orDie)

      const resolve = Effect.fn("ReportsRepo.resolve")(function*(id: string, adminId: string, comment: string | null, reason: string | null) {
        const updated = yield* sql<{ id: string }>`
          UPDATE reports SET status = ${ReportStatus.RESOLVED}, resolved_at = now(), resolved_by_admin_id = ${adminId},
            public_comment = ${comment}, audit_log_reason = ${reason}
          WHERE id = ${id} AND status = ${ReportStatus.PENDING} RETURNING id::text AS id`
        const report = yield* byId(id)
        if (report === undefined) return "unknown" as const
        return updated.length === 0 ? "already_resolved" as const : { resolved: report }
      }, Effect.orDie)

      const madeSince = Effect.fn("ReportsRepo.madeSince")(function*(reporterId: string, since: Date) {
        const [row] = yield* sql<{ n: string }>`
          SELECT count(*) AS n FROM reports WHERE reporter_id = ${reporterId} AND reported_at >= ${since}`
        return Number(row?.n ?? 0)
      }, Effect.orDie)

      return ReportsRepo.of({ create, byId, search, resolve, madeSince })
    })
  )
}
