import type { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import type { AuthorType, EmbedType, HasKind, SearchMessagesRequest } from "./Api.ts"

/*
 * The conditions of POST /search/messages on what a message holds and who
 * sent it. Each index-backed condition repeats its index's expression and
 * predicate exactly (schema/0026, schema/0027): Postgres uses an expression or
 * partial index only for the very same text.
 */

/** The expression and predicate of the index messages_link_hostnames (schema/0026). */
const LINKED = "(m.content ~* 'https?://' OR m.embeds <> '[]'::jsonb)"
const HOSTNAMES = "message_link_hostnames(m.content, m.embeds)"
/** The predicates and expressions of the indexes of schema/0027. */
const HAS_EMBEDS = "m.embeds <> '[]'::jsonb"
const HAS_ATTACHMENTS = "m.attachments <> '[]'::jsonb"
const PROVIDERS = "message_embed_providers(m.embeds)"
const FILENAMES = "message_attachment_filenames(m.attachments)"
const EXTENSIONS = "message_attachment_extensions(m.attachments)"

/** `?ext=.PDF` and `?ext=pdf` ask for the same: the index keeps extensions without their dot. */
const withoutLeadingDot = (extension: string) => extension.startsWith(".") ? extension.slice(1) : extension
/** A name as uploads store it (AttachmentRules.normaliseFilename): "my report.pdf" was stored as "my_report.pdf". */
const asStoredName = (filename: string) => filename.trim().replace(/\s+/g, "_")

type Values<A> = ReadonlyArray<A> | undefined

/** The filter conditions of `r` (none for the fields it leaves out or empty), to AND together. */
export const messageFilters = (sql: SqlClient.SqlClient, r: SearchMessagesRequest): ReadonlyArray<Fragment> => {
  /** The terms asked for, lower-cased by Postgres: the same lower() as the indexes', for any script. */
  const lowered = (terms: ReadonlyArray<string>): Fragment =>
    sql`ARRAY[${sql.join(", ", false)(terms.map((t) => sql`lower(${t}::text)`))}]::text[]`

  /** Any embed of one of `types` (the embed's own type), through messages_embed_types (schema/0026). */
  const embedOfType = (types: ReadonlyArray<EmbedType>): Fragment =>
    sql`(${sql.literal(HAS_EMBEDS)} AND ${sql.or(types.map((type) => sql`m.embeds @> ${JSON.stringify([{ type }])}::jsonb`))})`

  /** A link to any of `hostnames` (compared lower-cased, as the index keeps them). */
  const linkTo = (hostnames: ReadonlyArray<string>): Fragment =>
    sql`(${sql.literal(LINKED)} AND ${sql.literal(HOSTNAMES)} && ARRAY[${
      sql.join(", ", false)(hostnames.map((h) => sql`${h.toLowerCase()}`))
    }]::text[])`

  const embedFrom = (providers: ReadonlyArray<string>): Fragment =>
    sql`(${sql.literal(HAS_EMBEDS)} AND ${sql.literal(PROVIDERS)} && ${lowered(providers)})`

  /**
   * An attachment named one of `filenames`: the whole name or the name without its
   * extension, exactly but in any case ("report" and "REPORT.pdf" find "Report.pdf";
   * "port" does not). Discord matches a filename as a token, not a substring, and an
   * exact term is what a GIN index can look up.
   */
  const attachmentNamed = (filenames: ReadonlyArray<string>): Fragment =>
    sql`(${sql.literal(HAS_ATTACHMENTS)} AND ${sql.literal(FILENAMES)} && ${lowered(filenames.map(asStoredName))})`

  const attachmentWithExtension = (extensions: ReadonlyArray<string>): Fragment =>
    sql`(${sql.literal(HAS_ATTACHMENTS)} AND ${sql.literal(EXTENSIONS)} && ${lowered(extensions.map(withoutLeadingDot))})`

  const byBot = sql`EXISTS (SELECT 1 FROM users u WHERE u.id = m.author_id AND u.bot)`
  const byWebhook = sql`m.webhook_id IS NOT NULL`
  const authorIs = (type: AuthorType): Fragment => {
    switch (type) {
      case "bot":
        // A webhook shows as a bot but is not one: its author id names no user, so it is no bot's.
        return byBot
      case "user":
        // An author whose user row is gone counts as a person, as the API shows it (a "Deleted User").
        return sql`(NOT ${byWebhook} AND NOT ${byBot})`
      case "webhook":
        return byWebhook
    }
  }
  const authorOfType = (types: ReadonlyArray<AuthorType>): Fragment => sql.or(types.map(authorIs))

  const hasCondition = (kind: HasKind): Fragment => {
    switch (kind) {
      case "image":
        return sql`jsonb_path_exists(m.attachments, '$[*] ? (@.content_type like_regex "^image/")')`
      case "video":
        return sql`jsonb_path_exists(m.attachments, '$[*] ? (@.content_type like_regex "^video/")')`
      case "sound":
        return sql`jsonb_path_exists(m.attachments, '$[*] ? (@.content_type like_regex "^audio/")')`
      case "file":
        return sql.literal(HAS_ATTACHMENTS)
      case "sticker":
        return sql`m.stickers <> '[]'::jsonb`
      case "embed":
        return sql.literal(HAS_EMBEDS)
      case "link":
        return sql`m.content ~* 'https?://[^[:space:]]'`
      case "snapshot":
        return sql`m.snapshots IS NOT NULL`
      case "poll":
        // Polls are not sent on this server: no message has one.
        return sql`false`
    }
  }

  /** `condition` of the values asked for; nothing when none are. */
  const matching = <A>(values: Values<A>, condition: (values: ReadonlyArray<A>) => Fragment): ReadonlyArray<Fragment> =>
    values === undefined || values.length === 0 ? [] : [condition(values)]
  /** Not `condition` of the values excluded; nothing when none are. */
  const notMatching = <A>(values: Values<A>, condition: (values: ReadonlyArray<A>) => Fragment): ReadonlyArray<Fragment> =>
    values === undefined || values.length === 0 ? [] : [sql`NOT (${condition(values)})`]

  return [
    ...(r.has ?? []).map(hasCondition),
    ...(r.exclude_has ?? []).map((kind) => sql`NOT (${hasCondition(kind)})`),
    ...matching(r.author_type, authorOfType),
    ...notMatching(r.exclude_author_type, authorOfType),
    ...matching(r.embed_type, embedOfType),
    ...notMatching(r.exclude_embed_type, embedOfType),
    ...matching(r.embed_provider, embedFrom),
    ...notMatching(r.exclude_embed_provider, embedFrom),
    ...matching(r.link_hostname, linkTo),
    ...notMatching(r.exclude_link_hostname, linkTo),
    ...matching(r.attachment_filename, attachmentNamed),
    ...notMatching(r.exclude_attachment_filename, attachmentNamed),
    ...matching(r.attachment_extension, attachmentWithExtension),
    ...notMatching(r.exclude_attachment_extension, attachmentWithExtension)
  ]
}
