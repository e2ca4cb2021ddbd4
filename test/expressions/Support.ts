import { Effect } from "effect"
import { TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

/** The guild's expression audit entries, oldest first. */
export const auditEntries = (guildId: string) =>
  Effect.flatMap(TestApi, (api) =>
    queryAt(
      api.databaseUrl,
      `SELECT action_type, target_id, user_id::text AS user_id, reason, changes FROM guild_audit_log_entries
       WHERE guild_id = $1 AND action_type IN (60, 61, 62, 90, 91, 92) ORDER BY id`,
      [guildId]
    ))
