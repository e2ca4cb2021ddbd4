import { Effect } from "effect"
import { TestApi } from "./Api.ts"
import { queryAt } from "./Postgres.ts"

/** The guild's audit entries, newest first, as the actor stored them. */
export const auditEntries = (guildId: string) =>
  Effect.flatMap(TestApi, (api) =>
    queryAt(
      api.databaseUrl,
      "SELECT user_id::text AS user_id, action_type, target_id, reason, changes FROM guild_audit_log_entries WHERE guild_id = $1 ORDER BY id DESC",
      [guildId]
    ))

/** The guild's audit entries of `actionType`, oldest first, with their options. */
export const auditEntriesOfType = (guildId: string, actionType: number) =>
  Effect.flatMap(TestApi, (api) =>
    queryAt(
      api.databaseUrl,
      `SELECT user_id::text AS user_id, target_id, reason, changes, options FROM guild_audit_log_entries
       WHERE guild_id = $1 AND action_type = $2 ORDER BY id`,
      [guildId, actionType]
    ))
