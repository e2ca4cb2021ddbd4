import { Effect, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { INCOMING_WEBHOOK } from "../../../src/model/Webhooks.ts"
import { loadPartialUsers } from "../../actors/PartialUsers.ts"
import { DELETED_CREATOR } from "../expressions/ExpressionRows.ts"
import type { GuildWebhook } from "./GuildWebhook.ts"

const WebhookRow = Schema.Struct({
  id: Schema.String,
  channel_id: Schema.String,
  name: Schema.String,
  avatar_hash: Schema.NullOr(Schema.String),
  token_hash: Schema.String,
  creator_id: Schema.NullOr(Schema.String)
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(WebhookRow))

/** A guild's webhooks with their creators, for GuildRepo.load. */
export const loadWebhooks = (
  guildId: string
): Effect.Effect<ReadonlyMap<string, GuildWebhook>, SqlError.SqlError | Schema.SchemaError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* decodeRows(yield* sql`
      SELECT id::text AS id, channel_id::text AS channel_id, name, avatar_hash, token_hash, creator_id::text AS creator_id
      FROM webhooks WHERE guild_id = ${guildId} ORDER BY id`)
    const creators = yield* loadPartialUsers([...new Set(rows.flatMap((r) => (r.creator_id === null ? [] : [r.creator_id])))])
    return new Map(rows.map((r): [string, GuildWebhook] => [r.id, {
      id: r.id,
      channel_id: r.channel_id,
      name: r.name,
      avatar: r.avatar_hash,
      tokenHash: r.token_hash,
      creator: (r.creator_id === null ? undefined : creators.get(r.creator_id)) ?? DELETED_CREATOR
    }]))
  })

export const insertWebhook = (guildId: string, webhook: GuildWebhook) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`
      INSERT INTO webhooks (id, guild_id, channel_id, type, name, avatar_hash, token_hash, creator_id)
      VALUES (${webhook.id}, ${guildId}, ${webhook.channel_id}, ${INCOMING_WEBHOOK}, ${webhook.name}, ${webhook.avatar},
        ${webhook.tokenHash}, ${webhook.creator.id === DELETED_CREATOR.id ? null : webhook.creator.id})`))

export const updateWebhook = (webhook: GuildWebhook) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`
      UPDATE webhooks SET channel_id = ${webhook.channel_id}, name = ${webhook.name}, avatar_hash = ${webhook.avatar}
      WHERE id = ${webhook.id}`))

export const deleteWebhook = (webhookId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`DELETE FROM webhooks WHERE id = ${webhookId}`))
