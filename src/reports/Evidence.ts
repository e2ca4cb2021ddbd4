import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as MessageReads from "../../shards/guild/operations/MessageReads.ts"
import { Dms } from "../dms/Dms.ts"
import { Actors } from "../guilds/Actors.ts"
import { ChannelLookup } from "../messages/ChannelLookup.ts"
import { type BadRequest, type Forbidden, type NotFound, type Unavailable, unknown } from "../model/Errors.ts"
import type { ChannelId, MessageId, UserId } from "../model/Ids.ts"
import { isoTimestamp } from "../platform/Timestamps.ts"
import type { ContextMessage } from "./Repo.ts"

/** Messages kept on each side of a reported one. */
export const CONTEXT_EACH_SIDE = 5

/** What a message report keeps: where the message was, its author, and it with its neighbours. */
export interface Evidence {
  readonly guildId: string | null
  readonly guildName: string | null
  readonly channelName: string | null
  readonly authorId: string
  readonly authorAvatar: string | null
  readonly context: ReadonlyArray<ContextMessage>
}

interface ContextRow {
  readonly id: string
  readonly channel_id: string
  readonly guild_id: string | null
  readonly content: string
  readonly created_at: Date | string
  readonly attachments: unknown
  readonly author_id: string
  readonly username: string | null
  readonly discriminator: string | null
  readonly avatar: string | null
}

const Attachments = Schema.Array(Schema.Struct({ filename: Schema.String, url: Schema.String }))
const decodeAttachments = Schema.decodeUnknownOption(Attachments)

const toContext = (row: ContextRow): ContextMessage => {
  const attachments = decodeAttachments(row.attachments)
  return {
    id: row.id,
    channel_id: row.channel_id,
    guild_id: row.guild_id,
    content: row.content,
    timestamp: isoTimestamp(row.created_at),
    attachments: attachments._tag === "Some" ? attachments.value.map((a) => ({ filename: a.filename, url: a.url })) : [],
    author_id: row.author_id,
    // An author whose account is gone keeps the id; the name is what is left of it.
    author_username: row.username ?? "Deleted User",
    author_discriminator: (row.discriminator ?? "0").padStart(4, "0")
  }
}

type Failure = BadRequest | Forbidden | NotFound | Unavailable

/**
 * Reads what a message report keeps, at the time of the report, for a reporter
 * who can see the message (as GET /channels/{id}/messages/{id} decides):
 * anything else is UNKNOWN_MESSAGE or the read's refusal.
 */
export class ReportEvidence extends Context.Service<ReportEvidence, {
  readonly ofMessage: (reporterId: UserId, channelId: ChannelId, messageId: MessageId) => Effect.Effect<Evidence, Failure>
  /** The same for a reporter without an account (a DSA report): what Postgres holds, without an access check. */
  readonly stored: (channelId: string, messageId: string) => Effect.Effect<Evidence, NotFound>
}>()("guildhall/ReportEvidence") {
  static readonly layer = Layer.effect(
    ReportEvidence,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const channels = yield* ChannelLookup
      const actors = yield* Actors
      const dms = yield* Dms

      const columns = sql`m.id::text AS id, m.channel_id::text AS channel_id, m.guild_id::text AS guild_id, m.content,
        m.created_at, m.attachments, m.author_id::text AS author_id, u.username, u.discriminator, u.avatar`

      const stored = Effect.fn("ReportEvidence.stored")(function*(channelId: string, messageId: string) {
        const rows = yield* sql<ContextRow>`
          (SELECT ${columns} FROM messages m LEFT JOIN users u ON u.id = m.author_id
            WHERE m.channel_id = ${channelId} AND m.id <= ${messageId} ORDER BY m.id DESC LIMIT ${CONTEXT_EACH_SIDE + 1})
          UNION ALL
          (SELECT ${columns} FROM messages m LEFT JOIN users u ON u.id = m.author_id
            WHERE m.channel_id = ${channelId} AND m.id > ${messageId} ORDER BY m.id ASC LIMIT ${CONTEXT_EACH_SIDE})`.pipe(Effect.orDie)
        const reported = rows.find((row) => row.id === messageId)
        if (reported === undefined) return yield* Effect.fail(unknown("MESSAGE"))
        const [place] = yield* sql<{ guild_name: string | null; channel_name: string | null }>`
          SELECT g.name AS guild_name, c.name AS channel_name FROM channels c LEFT JOIN guilds g ON g.id = c.guild_id
          WHERE c.id = ${channelId}`.pipe(Effect.orDie)
        return {
          guildId: reported.guild_id,
          guildName: place?.guild_name ?? null,
          channelName: place?.channel_name ?? null,
          authorId: reported.author_id,
          authorAvatar: reported.avatar,
          context: [...rows].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)).map(toContext)
        }
      })

      const ofMessage = Effect.fn("ReportEvidence.ofMessage")(function*(reporterId: UserId, channelId: ChannelId, messageId: MessageId) {
        yield* channels.byOwner(channelId, {
          guild: (guildId) => actors.read(guildId, MessageReads.getMessage, { channelId, messageId }, reporterId),
          dm: () => dms.getMessage(channelId, reporterId, messageId)
        })
        return yield* stored(channelId, messageId)
      })

      return ReportEvidence.of({ ofMessage, stored })
    })
  )
}
