import { Context, Effect, Layer, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { AUDIT_REASON_HEADER, decodeAuditReason } from "../guilds/AuditReason.ts"
import { SqlClient } from "effect/sql"
import { newToken, tokenHash } from "../platform/Crypto.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { isoTimestamp, isoTimestampOrNull } from "../platform/Timestamps.ts"
import type { AdminAuditLogResponse, ApiKeyResponse, AuditLogsSearchRequest } from "./Api.ts"

interface KeyRow {
  readonly id: string
  readonly name: string
  readonly acls: ReadonlyArray<string>
  readonly created_at: Date
  readonly expires_at: Date | null
}
interface LogRow {
  readonly id: string
  readonly admin_user_id: string
  readonly action: string
  readonly audit_log_reason: string | null
  readonly created_at: Date
  readonly metadata: Record<string, string>
  readonly target_id: string
  readonly target_type: string
}

const toKey = (row: KeyRow): ApiKeyResponse => ({
  key_id: row.id,
  name: row.name,
  acls: row.acls,
  created_at: isoTimestamp(row.created_at),
  expires_at: isoTimestampOrNull(row.expires_at)
})

const toLog = (row: LogRow): AdminAuditLogResponse => ({
  log_id: row.id,
  admin_user_id: row.admin_user_id,
  action: row.action,
  audit_log_reason: row.audit_log_reason,
  created_at: isoTimestamp(row.created_at),
  metadata: row.metadata,
  target_id: row.target_id,
  target_type: row.target_type
})

export interface AuditEntry {
  readonly adminId: string
  readonly action: string
  readonly targetType: string
  readonly targetId: string
  readonly metadata?: Record<string, string>
}

/** Operator keys (only hashes stored) and the admin audit log. */
export class AdminRepo extends Context.Service<AdminRepo, {
  readonly createKey: (input: { name: string; acls: ReadonlyArray<string>; expiresInDays?: number; createdBy: string | null; secret?: string }) => Effect.Effect<ApiKeyResponse & { key: string }>
  readonly keyBySecret: (secret: string) => Effect.Effect<(ApiKeyResponse & { expired: boolean }) | undefined>
  readonly listKeys: Effect.Effect<ReadonlyArray<ApiKeyResponse>>
  readonly deleteKey: (id: string) => Effect.Effect<boolean>
  readonly audit: (entry: AuditEntry) => Effect.Effect<void>
  readonly searchLogs: (query: AuditLogsSearchRequest & { action?: string }) => Effect.Effect<{ logs: ReadonlyArray<AdminAuditLogResponse>; total: number }>
}>()("guildhall/AdminRepo") {
  static readonly layer = Layer.effect(
    AdminRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const snowflakes = yield* Snowflakes

      const createKey = Effect.fn("AdminRepo.createKey")(function*(
        input: { name: string; acls: ReadonlyArray<string>; expiresInDays?: number; createdBy: string | null; secret?: string }
      ) {
        const key = input.secret ?? newToken()
        const expires = input.expiresInDays === undefined ? null : new Date(Date.now() + input.expiresInDays * 86_400_000)
        const [row] = yield* sql<KeyRow>`
          INSERT INTO admin_api_keys (id, name, key_hash, acls, created_by, expires_at)
          VALUES (${snowflakes.next()}, ${input.name}, ${tokenHash(key)}, ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(input.acls)}::jsonb)), ${input.createdBy}, ${expires})
          ON CONFLICT (key_hash) DO UPDATE SET acls = EXCLUDED.acls, expires_at = NULL
          RETURNING id, name, acls, created_at, expires_at`
        if (row === undefined) return yield* Effect.die(new Error("api key insert returned nothing"))
        return { ...toKey(row), key }
      }, Effect.orDie)

      const keyBySecret = Effect.fn("AdminRepo.keyBySecret")((secret: string) =>
        sql<KeyRow>`SELECT id, name, acls, created_at, expires_at FROM admin_api_keys WHERE key_hash = ${tokenHash(secret)}`.pipe(
          Effect.map((rows) => {
            const row = rows[0]
            if (row === undefined) return undefined
            return { ...toKey(row), expired: row.expires_at !== null && new Date(row.expires_at).getTime() <= Date.now() }
          }),
          Effect.orDie
        ))

      const searchLogs = Effect.fn("AdminRepo.searchLogs")(function*(q: AuditLogsSearchRequest & { action?: string }) {
        const conditions = [
          q.admin_user_id === undefined ? undefined : sql`admin_user_id = ${q.admin_user_id}`,
          q.target_id === undefined ? undefined : sql`target_id = ${q.target_id}`,
          q.action === undefined ? undefined : sql`action = ${q.action}`,
          q.query === undefined
            ? undefined
            : sql`(action ILIKE ${"%" + q.query + "%"} OR target_id ILIKE ${"%" + q.query + "%"} OR metadata::text ILIKE ${"%" + q.query + "%"})`
        ].filter((c) => c !== undefined)
        const order = q.sort_by === "action" ? sql`action` : sql`created_at`
        const direction = q.sort_order === "asc" ? sql`ASC` : sql`DESC`
        const where = conditions.length === 0 ? sql`` : sql`WHERE ${sql.and(conditions)}`
        const rows = yield* sql<LogRow>`
          SELECT * FROM admin_audit_logs ${where}
          ORDER BY ${order} ${direction}, id ${direction}
          LIMIT ${q.limit ?? 50} OFFSET ${q.offset ?? 0}`
        const [count] = yield* sql<{ total: string }>`SELECT count(*) AS total FROM admin_audit_logs ${where}`
        return { logs: rows.map(toLog), total: Number(count?.total ?? 0) }
      }, Effect.orDie)

      return AdminRepo.of({
        createKey,
        keyBySecret,
        listKeys: sql<KeyRow>`SELECT id, name, acls, created_at, expires_at FROM admin_api_keys ORDER BY id`.pipe(
          Effect.map((rows) => rows.map(toKey)),
          Effect.orDie,
          Effect.withSpan("AdminRepo.listKeys")
        ),
        deleteKey: Effect.fn("AdminRepo.deleteKey")((id) =>
          sql`DELETE FROM admin_api_keys WHERE id = ${id} RETURNING id`.pipe(Effect.map((r) => r.length > 0), Effect.orDie)),
        // The reason is the request's X-Audit-Log-Reason, as production takes it, so no handler passes it along.
        audit: Effect.fn("AdminRepo.audit")(function*(e) {
          const request = yield* Effect.serviceOption(HttpServerRequest.HttpServerRequest)
          const reason = Option.isSome(request) ? decodeAuditReason(request.value.headers[AUDIT_REASON_HEADER]) : null
          yield* sql`INSERT INTO admin_audit_logs (id, admin_user_id, action, target_type, target_id, audit_log_reason, metadata)
              VALUES (${snowflakes.next()}, ${e.adminId}, ${e.action}, ${e.targetType}, ${e.targetId}, ${reason},
                      ${JSON.stringify(e.metadata ?? {})}::jsonb)`
        }, Effect.orDie),
        searchLogs
      })
    })
  )
}
