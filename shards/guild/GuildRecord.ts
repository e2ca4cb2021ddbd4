import { Effect, Record, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { IsoTimestamp } from "../../src/platform/Timestamps.ts"

const Text = Schema.String
const TextOrNull = Schema.NullOr(Schema.String)
/** int8 ids: the database layer decodes them to decimal strings (src/platform/Database.ts). */
const Id = Schema.String
const IdOrNull = Schema.NullOr(Schema.String)
const Integer = Schema.Int

/**
 * The guild record the actor keeps, declared once: each field is the column of
 * `guilds` of the same name, with the schema that decodes it from the row. The
 * record's type, the columns `load` selects, the row a new guild inserts and the
 * columns a change updates are all derived from this table, so a field can be
 * neither kept without being persisted nor persisted without being loaded. What
 * clients see of it is a view (Views.ts), not this record.
 */
export const GuildRecordColumns = Schema.Struct({
  id: Id,
  name: Text,
  icon: TextOrNull,
  banner: TextOrNull,
  splash: TextOrNull,
  splash_card_alignment: Integer,
  embed_splash: TextOrNull,
  vanity_url_code: TextOrNull,
  owner_id: Id,
  system_channel_id: IdOrNull,
  system_channel_flags: Integer,
  rules_channel_id: IdOrNull,
  afk_channel_id: IdOrNull,
  afk_timeout: Integer,
  features: Schema.Array(Text),
  verification_level: Integer,
  mfa_level: Integer,
  nsfw_level: Integer,
  nsfw: Schema.Boolean,
  content_warning_level: Integer,
  content_warning_text: TextOrNull,
  explicit_content_filter: Integer,
  default_message_notifications: Integer,
  disabled_operations: Integer,
  message_history_cutoff: Schema.NullOr(IsoTimestamp)
})

/** The guild's own settings and identity, as the actor keeps them. */
export type GuildRecord = typeof GuildRecordColumns.Type

/** A change of the record: any columns but the id. */
export type GuildRecordChange = Partial<Omit<GuildRecord, "id">>

/** The columns of the record, in declaration order. */
export const GUILD_RECORD_COLUMNS = Record.keys(GuildRecordColumns.fields)

const updatable: ReadonlySet<string> = new Set(GUILD_RECORD_COLUMNS.filter((column) => column !== "id"))

/** A guild's row as `load` selects it: the record's columns and the creation time. */
const GuildRow = Schema.Struct({ ...GuildRecordColumns.fields, created_at: IsoTimestamp })

const decodeRow = Schema.decodeUnknownEffect(GuildRow)

/** The record and creation time of the guild `guildId`, or undefined when there is none. */
export const loadRecord = (guildId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql`SELECT ${sql.literal(GUILD_RECORD_COLUMNS.join(", "))}, created_at FROM guilds WHERE id = ${guildId}`
    if (row === undefined) return undefined
    const { created_at, ...record } = yield* decodeRow(row)
    return { record, createdAt: created_at }
  })

/** Inserts a new guild's row: every column of its record. */
export const insertRecord = (record: GuildRecord, createdAt: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.asVoid(sql`INSERT INTO guilds ${sql.insert({ ...record, created_at: createdAt })}`))

/**
 * Writes the columns `change` sets. Only the record's columns are written: a
 * change built from a wider object (a request) carries nothing else to the row.
 */
export const updateRecord = (guildId: string, change: GuildRecordChange) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = Object.fromEntries(Object.entries(change).filter(([column]) => updatable.has(column)))
    if (Object.keys(columns).length > 0) yield* sql`UPDATE guilds SET ${sql.update(columns)} WHERE id = ${guildId}`
  })
