import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { toUserPartial, type UserRow } from "../model/Users.ts"
import type { UserPartialResponse } from "../model/Users.ts"
import type { AuditLogWebhookResponse, GuildAuditLogEntryResponse } from "./Api.ts"

export interface AuditLogPage {
  readonly limit: number
  readonly before?: string | undefined
  readonly after?: string | undefined
  readonly userId?: string | undefined
  readonly actionType?: number | undefined
}

interface EntryRow {
  readonly id: string
  readonly user_id: string | null
  readonly action_type: number
  readonly target_id: string | null
  readonly reason: string | null
  readonly changes: GuildAuditLogEntryResponse["changes"]
  readonly options: Readonly<Record<string, unknown>> | null
}

const toEntry = (row: EntryRow): GuildAuditLogEntryResponse => ({
  id: row.id,
  action_type: row.action_type,
  user_id: row.user_id,
  target_id: row.target_id,
  ...(row.reason === null ? {} : { reason: row.reason }),
  ...(row.options === null ? {} : { options: row.options }),
  changes: row.changes
})

const SNOWFLAKE = /^[0-9]{1,19}$/

/** WEBHOOK_CREATE, WEBHOOK_UPDATE, WEBHOOK_DELETE: their target is a webhook. */
const WEBHOOK_ACTIONS: ReadonlySet<number> = new Set([50, 51, 52])

/**
 * The guild audit log as the guild actors wrote it (guild_audit_log_entries):
 * newest first; `after` pages towards the newer end, so it takes the entries
 * just after it.
 */
export class AuditLogRepo extends Context.Service<AuditLogRepo, {
  readonly entries: (guildId: string, page: AuditLogPage) => Effect.Effect<ReadonlyArray<GuildAuditLogEntryResponse>>
  /** The users an entry names: who acted, and targets that are users. */
  readonly usersOf: (entries: ReadonlyArray<GuildAuditLogEntryResponse>) => Effect.Effect<ReadonlyArray<UserPartialResponse>>
  /** The guild's webhooks the entries are about that still exist, as the production service lists them. */
  readonly webhooksOf: (
    guildId: string,
    entries: ReadonlyArray<GuildAuditLogEntryResponse>
  ) => Effect.Effect<ReadonlyArray<typeof AuditLogWebhookResponse.Type>>
}>()("guildhall/AuditLogRepo") {
  static readonly layer = Layer.effect(
    AuditLogRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const entries = Effect.fn("AuditLogRepo.entries")(function*(guildId: string, page: AuditLogPage) {
        const filters = [
          sql`guild_id = ${guildId}`,
          ...(page.before === undefined ? [] : [sql`id < ${page.before}`]),
          ...(page.after === undefined ? [] : [sql`id > ${page.after}`]),
          ...(page.userId === undefined ? [] : [sql`user_id = ${page.userId}`]),
          ...(page.actionType === undefined ? [] : [sql`action_type = ${page.actionType}`])
        ]
        const order = page.after === undefined ? sql`id DESC` : sql`id ASC`
        const rows = yield* sql<EntryRow>`
          SELECT id::text AS id, user_id::text AS user_id, action_type, target_id, reason, changes, options
          FROM guild_audit_log_entries WHERE ${sql.and(filters)} ORDER BY ${order} LIMIT ${page.limit}`
        const newestFirst = page.after === undefined ? rows : [...rows].reverse()
        return newestFirst.map(toEntry)
      }, Effect.orDie)

      const usersOf = Effect.fn("AuditLogRepo.usersOf")((list: ReadonlyArray<GuildAuditLogEntryResponse>) => {
        const ids = [...new Set(list.flatMap((e) => [e.user_id, e.target_id]))].filter(
          (id): id is string => id !== null && SNOWFLAKE.test(id)
        )
        if (ids.length === 0) return Effect.succeed([])
        return sql<UserRow>`SELECT * FROM users WHERE id IN ${sql.in(ids)} ORDER BY id`.pipe(
          Effect.map((rows) => rows.map(toUserPartial)),
          Effect.orDie
        )
      })

      const webhooksOf = Effect.fn("AuditLogRepo.webhooksOf")((guildId: string, list: ReadonlyArray<GuildAuditLogEntryResponse>) => {
        const ids = [...new Set(list.flatMap((e) => (WEBHOOK_ACTIONS.has(e.action_type) && e.target_id !== null ? [e.target_id] : [])))]
          .filter((id) => SNOWFLAKE.test(id))
        if (ids.length === 0) return Effect.succeed([])
        return sql<typeof AuditLogWebhookResponse.Type>`
          SELECT id::text AS id, type, guild_id::text AS guild_id, channel_id::text AS channel_id, name, avatar_hash
          FROM webhooks WHERE guild_id = ${guildId} AND id IN ${sql.in(ids)} ORDER BY id`.pipe(Effect.orDie)
      })

      return AuditLogRepo.of({ entries, usersOf, webhooksOf })
    })
  )
}
