import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** Where a page of messages ended; the next page starts after it. */
export interface MessageKey {
  /** The guild of the last message for an author's guild messages; null once at their DMs. */
  readonly guildId: string | null
  readonly id: string
}

/** Rows as JSON text (ids as strings, so no reader loses digits), and where the page ended. */
export interface Page<K> {
  readonly rows: ReadonlyArray<string>
  readonly next: K | undefined
}

/** A message as archives show it: what was written, where, when; attachments as the links they were sent with. */
const MESSAGE = `SELECT id::text AS id, channel_id::text AS channel_id, guild_id::text AS guild_id,
  author_id::text AS author_id, type, content, created_at, edited_at, attachments, embeds, stickers,
  reference_message_id::text AS reference_message_id, pinned FROM messages`

const json = (inner: string) => `SELECT row_to_json(r)::text AS json FROM (${inner}) r`

/**
 * The reads of an export (Job.ts), straight from Postgres and nothing else:
 * an archive is a copy of what is stored. Messages and members come in pages
 * by key (keyset), so no export holds more than a page in memory.
 */
export class ArchiveReads extends Context.Service<ArchiveReads, {
  readonly exists: (subjectType: "user" | "guild", id: string) => Effect.Effect<boolean>
  /** The account, without its secrets (password hash, MFA); undefined when there is no such user. */
  readonly account: (userId: string) => Effect.Effect<string | undefined>
  readonly settings: (userId: string) => Effect.Effect<string>
  /** Where the user's mail goes, if they have an address. */
  readonly email: (userId: string) => Effect.Effect<string | undefined>
  readonly relationships: (userId: string) => Effect.Effect<ReadonlyArray<string>>
  readonly memberships: (userId: string) => Effect.Effect<ReadonlyArray<string>>
  readonly dmChannels: (userId: string) => Effect.Effect<ReadonlyArray<string>>
  readonly authoredCount: (userId: string) => Effect.Effect<number>
  /** The author's messages after `after`: guild by guild (the messages_author index's order), then their DMs. */
  readonly authored: (userId: string, after: MessageKey | undefined, limit: number) => Effect.Effect<Page<MessageKey>>
  readonly guild: (guildId: string) => Effect.Effect<string | undefined>
  readonly channels: (guildId: string) => Effect.Effect<ReadonlyArray<{ readonly id: string; readonly json: string }>>
  readonly roles: (guildId: string) => Effect.Effect<ReadonlyArray<string>>
  readonly memberCount: (guildId: string) => Effect.Effect<number>
  readonly members: (guildId: string, afterUserId: string | undefined, limit: number) => Effect.Effect<Page<string>>
  readonly channelMessageCount: (guildId: string) => Effect.Effect<number>
  readonly channelMessages: (channelId: string, afterId: string | undefined, limit: number) => Effect.Effect<Page<string>>
}>()("guildhall/ArchiveReads") {
  static readonly layer = Layer.effect(
    ArchiveReads,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const texts = (rows: ReadonlyArray<{ json: string }>) => rows.map((r) => r.json)
      const countOf = (rows: ReadonlyArray<{ n: number }>) => rows[0]?.n ?? 0

      const exists = Effect.fn("ArchiveReads.exists")((subjectType: "user" | "guild", id: string) =>
        (subjectType === "user" ? sql`SELECT 1 FROM users WHERE id = ${id}` : sql`SELECT 1 FROM guilds WHERE id = ${id}`).pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ))

      const account = Effect.fn("ArchiveReads.account")((userId: string) =>
        sql.unsafe<{ json: string }>(
          json(`SELECT id::text AS id, username, discriminator, global_name, email, email_verified, phone, date_of_birth,
             avatar, banner, bio, pronouns, accent_color, flags::text AS flags, locale, theme, timezone, bot, created_at
           FROM users WHERE id = $1`),
          [userId]
        ).pipe(Effect.map((rows) => rows[0]?.json), Effect.orDie))

      const settings = Effect.fn("ArchiveReads.settings")((userId: string) =>
        sql<{ json: string }>`
          SELECT (coalesce(s.data, '{}'::jsonb) || jsonb_build_object('theme', u.theme, 'locale', u.locale))::text AS json
          FROM users u LEFT JOIN user_settings s ON s.user_id = u.id WHERE u.id = ${userId}`.pipe(
          Effect.map((rows) => rows[0]?.json ?? "{}"),
          Effect.orDie
        ))

      const email = Effect.fn("ArchiveReads.email")((userId: string) =>
        sql<{ email: string | null }>`SELECT email FROM users WHERE id = ${userId}`.pipe(
          Effect.map((rows) => rows[0]?.email ?? undefined),
          Effect.orDie
        ))

      const many = (name: string, query: string) =>
        Effect.fn(`ArchiveReads.${name}`)((id: string) => sql.unsafe<{ json: string }>(json(query), [id]).pipe(Effect.map(texts), Effect.orDie))

      const relationships = many("relationships", `SELECT target_id::text AS user_id, type, nickname, since
        FROM relationships WHERE user_id = $1 ORDER BY target_id`)
      const memberships = many("memberships", `SELECT m.guild_id::text AS guild_id, g.name AS guild_name, m.nick,
          m.roles::text[] AS roles, m.joined_at FROM guild_members m JOIN guilds g ON g.id = m.guild_id
        WHERE m.user_id = $1 ORDER BY m.guild_id`)
      const dmChannels = many("dmChannels", `SELECT d.channel_id::text AS channel_id, c.type,
          ARRAY(SELECT o.user_id::text FROM dm_recipients o WHERE o.channel_id = d.channel_id ORDER BY o.user_id) AS recipient_ids
        FROM dm_recipients d JOIN channels c ON c.id = d.channel_id WHERE d.user_id = $1 ORDER BY d.channel_id`)
      const roles = many("roles", `SELECT id::text AS id, name, permissions::text AS permissions, position, color, hoist, mentionable,
          unicode_emoji FROM guild_roles WHERE guild_id = $1 ORDER BY position, id`)

      const authoredCount = Effect.fn("ArchiveReads.authoredCount")((userId: string) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM messages WHERE author_id = ${userId}`.pipe(Effect.map(countOf), Effect.orDie))

      // Two ranges of the messages_author index (author_id, guild_id, id): the guild messages by
      // (guild, id), then the DMs (guild_id null) by id.
      const authored = Effect.fn("ArchiveReads.authored")(function*(userId: string, after: MessageKey | undefined, limit: number) {
        type Row = { json: string; guild_id: string | null; id: string }
        const page = (rows: ReadonlyArray<Row>): Page<MessageKey> => {
          const last = rows.at(-1)
          return { rows: texts(rows), next: last === undefined ? undefined : { guildId: last.guild_id, id: last.id } }
        }
        const keyed = (where: string, params: ReadonlyArray<unknown>, order: string) =>
          sql.unsafe<Row>(
            `SELECT row_to_json(r)::text AS json, r.guild_id, r.id FROM (${MESSAGE} WHERE author_id = $1 AND ${where} ORDER BY ${order} LIMIT $2) r`,
            [userId, limit, ...params]
          )
        if (after === undefined || after.guildId !== null) {
          const rows = after === undefined
            ? yield* keyed("guild_id IS NOT NULL", [], "guild_id, id")
            : yield* keyed("guild_id IS NOT NULL AND (guild_id, id) > ($3, $4)", [after.guildId, after.id], "guild_id, id")
          if (rows.length > 0) return page(rows)
        }
        const afterDm = after?.guildId === null ? after.id : "0"
        return page(yield* keyed("guild_id IS NULL AND id > $3", [afterDm], "id"))
      }, Effect.orDie)

      const guild = Effect.fn("ArchiveReads.guild")((guildId: string) =>
        sql.unsafe<{ json: string }>(json(`SELECT id::text AS id, name, icon, banner, owner_id::text AS owner_id, features,
            verification_level, nsfw_level, vanity_url_code, system_channel_id::text AS system_channel_id,
            rules_channel_id::text AS rules_channel_id, afk_channel_id::text AS afk_channel_id, afk_timeout, created_at
          FROM guilds WHERE id = $1`), [guildId]).pipe(Effect.map((rows) => rows[0]?.json), Effect.orDie))

      const channels = Effect.fn("ArchiveReads.channels")((guildId: string) =>
        sql.unsafe<{ json: string; id: string }>(
          `SELECT row_to_json(r)::text AS json, r.id FROM (SELECT id::text AS id, type, name, topic, position,
             parent_id::text AS parent_id, nsfw, permission_overwrites, rate_limit_per_user, created_at
           FROM channels WHERE guild_id = $1 ORDER BY position, id) r`,
          [guildId]
        ).pipe(Effect.orDie))

      const memberCount = Effect.fn("ArchiveReads.memberCount")((guildId: string) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM guild_members WHERE guild_id = ${guildId}`.pipe(Effect.map(countOf), Effect.orDie))

      const members = Effect.fn("ArchiveReads.members")((guildId: string, afterUserId: string | undefined, limit: number) =>
        sql.unsafe<{ json: string; user_id: string }>(
          `SELECT row_to_json(r)::text AS json, r.user_id FROM (SELECT m.user_id::text AS user_id, u.username, u.discriminator,
             m.nick, m.roles::text[] AS roles, m.joined_at FROM guild_members m JOIN users u ON u.id = m.user_id
           WHERE m.guild_id = $1 AND m.user_id > $2 ORDER BY m.user_id LIMIT $3) r`,
          [guildId, afterUserId ?? "0", limit]
        ).pipe(Effect.map((rows) => ({ rows: texts(rows), next: rows.at(-1)?.user_id })), Effect.orDie))

      // By the channels' primary key ranges (channel_id, id): messages has no index on guild_id alone.
      const channelMessageCount = Effect.fn("ArchiveReads.channelMessageCount")((guildId: string) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM messages
                           WHERE channel_id IN (SELECT id FROM channels WHERE guild_id = ${guildId})`.pipe(Effect.map(countOf), Effect.orDie))

      const channelMessages = Effect.fn("ArchiveReads.channelMessages")((channelId: string, afterId: string | undefined, limit: number) =>
        sql.unsafe<{ json: string; id: string }>(
          `SELECT row_to_json(r)::text AS json, r.id FROM (${MESSAGE} WHERE channel_id = $1 AND id > $2 ORDER BY id LIMIT $3) r`,
          [channelId, afterId ?? "0", limit]
        ).pipe(Effect.map((rows) => ({ rows: texts(rows), next: rows.at(-1)?.id })), Effect.orDie))

      return ArchiveReads.of({
        exists, account, settings, email, relationships, memberships, dmChannels, authoredCount, authored,
        guild, channels, roles, memberCount, members, channelMessageCount, channelMessages
      })
    })
  )
}
