import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { GuildChannel } from "./GuildChannel.ts"

const TextOrNull = Schema.NullOr(Schema.String)

/** The columns of a channel as `loadChannels` selects them, each with the schema that decodes it. */
const ChannelRow = Schema.Struct({
  id: Schema.String,
  guild_id: Schema.String,
  name: TextOrNull,
  topic: TextOrNull,
  type: Schema.Int,
  position: Schema.Int,
  parent_id: TextOrNull,
  nsfw: Schema.Boolean,
  permission_overwrites: Schema.Array(Schema.Struct({ id: Schema.String, type: Schema.Int, allow: Schema.String, deny: Schema.String })),
  url: TextOrNull,
  bitrate: Schema.NullOr(Schema.Int),
  user_limit: Schema.NullOr(Schema.Int),
  rate_limit_per_user: Schema.Int,
  rtc_region: TextOrNull
})
type ChannelRow = typeof ChannelRow.Type

/** A stored channel as the actor keeps it: variant fields only where they belong. */
const channelFromRow = (row: ChannelRow): GuildChannel => ({
  id: row.id,
  guild_id: row.guild_id,
  ...(row.name === null ? {} : { name: row.name }),
  topic: row.topic,
  type: row.type,
  position: row.position,
  parent_id: row.parent_id,
  nsfw: row.nsfw,
  permission_overwrites: row.permission_overwrites,
  ...(row.url === null ? {} : { url: row.url }),
  ...(row.bitrate === null ? {} : { bitrate: row.bitrate }),
  ...(row.user_limit === null ? {} : { user_limit: row.user_limit }),
  ...(row.rate_limit_per_user === 0 ? {} : { rate_limit_per_user: row.rate_limit_per_user }),
  ...(row.rtc_region === null ? {} : { rtc_region: row.rtc_region })
})

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(ChannelRow))

/** The guild's channels, by id. */
export const loadChannels = (guildId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`
      SELECT id, guild_id, name, topic, type, position, parent_id, nsfw, permission_overwrites, url, bitrate,
             user_limit, rate_limit_per_user, rtc_region FROM channels WHERE guild_id = ${guildId}`
    const channels = yield* decodeRows(rows)
    return new Map(channels.map((row) => [row.id, channelFromRow(row)]))
  })

/** The columns of a channel to write. */
export const channelColumns = (guildId: string, c: GuildChannel) => ({
  id: c.id,
  guild_id: guildId,
  type: c.type,
  name: c.name ?? null,
  topic: c.topic,
  position: c.position,
  parent_id: c.parent_id,
  nsfw: c.nsfw,
  permission_overwrites: JSON.stringify(c.permission_overwrites),
  url: c.url ?? null,
  bitrate: c.bitrate ?? null,
  user_limit: c.user_limit ?? null,
  rate_limit_per_user: c.rate_limit_per_user ?? 0,
  rtc_region: c.rtc_region ?? null
})

/** Writes a channel as it now is (created or changed). */
export const saveChannel = (guildId: string, channel: GuildChannel) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const c = channelColumns(guildId, channel)
    yield* sql`INSERT INTO channels (id, guild_id, type, name, topic, position, parent_id, nsfw, permission_overwrites,
                                     url, bitrate, user_limit, rate_limit_per_user, rtc_region)
               VALUES (${c.id}, ${c.guild_id}, ${c.type}, ${c.name}, ${c.topic}, ${c.position}, ${c.parent_id}, ${c.nsfw},
                       ${c.permission_overwrites}::jsonb, ${c.url}, ${c.bitrate}, ${c.user_limit}, ${c.rate_limit_per_user},
                       ${c.rtc_region})
               ON CONFLICT (id) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name, topic = EXCLUDED.topic,
                 position = EXCLUDED.position, parent_id = EXCLUDED.parent_id, nsfw = EXCLUDED.nsfw,
                 permission_overwrites = EXCLUDED.permission_overwrites, url = EXCLUDED.url, bitrate = EXCLUDED.bitrate,
                 user_limit = EXCLUDED.user_limit, rate_limit_per_user = EXCLUDED.rate_limit_per_user,
                 rtc_region = EXCLUDED.rtc_region`
  })

/** Removes a channel; its children lose their parent, the guild settings naming it are cleared. */
export const removeChannel = (guildId: string, channelId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM channels WHERE id = ${channelId} AND guild_id = ${guildId}`
    yield* sql`UPDATE channels SET parent_id = NULL WHERE parent_id = ${channelId} AND guild_id = ${guildId}`
    for (const column of ["system_channel_id", "afk_channel_id", "rules_channel_id"] as const) {
      yield* sql`UPDATE guilds SET ${sql(column)} = NULL WHERE id = ${guildId} AND ${sql(column)} = ${channelId}`
    }
  })
