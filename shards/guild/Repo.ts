import { Context, Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { loadChannels } from "./channels/ChannelRows.ts"
import { loadMembers } from "./members/MemberRows.ts"
import { loadExpressions } from "./expressions/ExpressionRows.ts"
import { loadBans, loadInvites } from "./members/BanInviteRows.ts"
import { noSearchIndex } from "./members/SearchIndex.ts"
import { loadChannelMessages } from "./messages/MessageRows.ts"
import { withReactionsAndPins } from "./messages/ReactionRows.ts"
import type { WriteContext } from "./Definitions.ts"
import type { DecidedWrite } from "./WriteBatches.ts"
import type { GuildState } from "./State.ts"
import { insertRecord, loadRecord } from "./GuildRecord.ts"
import { loadRoles } from "./roles/GuildRole.ts"
import { loadWebhooks } from "./webhooks/WebhookRows.ts"
import { rowsInOneStatement, writeDecisions } from "../actors/BatchStatements.ts"
import { rowsTable } from "../actors/RowColumns.ts"
import { fenceHeld, makeFences } from "../actors/Fences.ts"
import { operationResults, recordOperations } from "../actors/Operations.ts"

const AUDIT_COLUMNS = ["id", "user_id", "action_type", "target_id", "reason", "changes", "options", "created_at"]

/** What the actor knows of a write it commits. */
export type CommittedWrite = Pick<WriteContext, "operationId" | "actorId" | "reason" | "now">

/** Postgres side of the guild actor: load everything, write each change with its operation record. */
export class GuildRepo extends Context.Service<GuildRepo, {
  readonly load: (guildId: string) => Effect.Effect<GuildState | undefined>
  readonly exists: (guildId: string) => Effect.Effect<boolean>
  /** Those of `guildIds` that name a guild, each once. */
  readonly existing: (guildIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /** The stored result of an operation that already committed. */
  readonly operationResult: (operationId: string) => Effect.Effect<unknown>
  /** Fails with what Postgres said, so the actor can tell a refusal for good from an outage. */
  readonly insertGuild: (state: GuildState, operationId: string, result: unknown) => Effect.Effect<void, SqlError.SqlError>
  /** The stored results of those of `operationIds` that committed already. */
  readonly operationResults: (operationIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, unknown>>
  /** Writes' rows, audit entries and operation records, in order, in one transaction. */
  readonly commitWrites: (guildId: string, writes: ReadonlyArray<DecidedWrite>) => Effect.Effect<void, SqlError.SqlError>
}>()("guildhall/GuildRepo") {
  static readonly layer = Layer.effect(
    GuildRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const fences = makeFences(sql, "guild")
      const recordOperation = (operationId: string, entityId: string, result: unknown) =>
        sql`INSERT INTO actor_operations (operation_id, entity_id, result)
            SELECT ${operationId}, ${entityId}, ${JSON.stringify(result)}::jsonb WHERE ${fenceHeld(sql, fences.of(entityId))}`

      const load = Effect.fn("GuildRepo.load")(function*(guildId: string) {
        yield* fences.claim(guildId)
        const guild = yield* loadRecord(guildId)
        if (guild === undefined) return undefined
        const roles = yield* loadRoles(guildId)
        const channels = yield* loadChannels(guildId)
        const { members, memberProfiles } = yield* loadMembers(guildId)
        const bans = yield* loadBans(guildId)
        const invites = yield* loadInvites(guildId)
        const { emojis, stickers } = yield* loadExpressions(guildId)
        const channelMessages = yield* Effect.flatMap(loadChannelMessages(guildId), withReactionsAndPins(guildId))
        const webhooks = yield* loadWebhooks(guildId)
        const state: GuildState = {
          guild: guild.record,
          createdAt: guild.createdAt,
          roles,
          channels,
          members,
          memberProfiles,
          bans,
          invites,
          emojis,
          stickers,
          channelMessages,
          webhooks,
          latestSearchIndex: noSearchIndex()
        }
        return state
      }, Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)

      const insertGuild = Effect.fn("GuildRepo.insertGuild")(function*(state: GuildState, operationId: string, result: unknown) {
        const g = state.guild
        yield* Effect.provideService(insertRecord(g, state.createdAt), SqlClient.SqlClient, sql)
        for (const role of state.roles.values()) {
          yield* sql`INSERT INTO guild_roles (id, guild_id, name, permissions, position, color, hoist, mentionable)
                     VALUES (${role.id}, ${g.id}, ${role.name}, ${role.permissions}, ${role.position}, ${role.color},
                             ${role.hoist}, ${role.mentionable})`
        }
        for (const channel of state.channels.values()) {
          yield* sql`INSERT INTO channels (id, guild_id, type, name, topic, position, parent_id, nsfw)
                     VALUES (${channel.id}, ${g.id}, ${channel.type}, ${channel.name ?? null}, ${channel.topic ?? null},
                             ${channel.position ?? 0}, ${channel.parent_id ?? null}, ${channel.nsfw ?? false})`
        }
        for (const member of state.members.values()) {
          yield* sql`INSERT INTO guild_members (guild_id, user_id, nick, joined_at)
                     VALUES (${g.id}, ${member.user.id}, ${member.nick ?? null}, ${member.joined_at})`
        }
        yield* recordOperation(operationId, g.id, result)
      }, sql.withTransaction)

      // A batch's rows, then all its audit entries and all its operation records in one
      // statement each: round trips, not rows, are what a batch costs. A batch of one kind of
      // row (a burst of member updates, of messages) is one statement, its own transaction.
      // No span of its own: the batch's (WriteBatch.commit) is this call's, statements under it.
      const commitWrites = (guildId: string, writes: ReadonlyArray<DecidedWrite>): Effect.Effect<void, SqlError.SqlError> => {
        const decisions = writes.map((w) => w.decision)
        const entries = writes.flatMap(({ write, decision }) =>
          decision.audit.map((entry, i) => [
            (BigInt(write.operationId) + BigInt(i)).toString(), write.actorId, entry.actionType, entry.targetId, write.reason,
            JSON.stringify(entry.changes), entry.options === undefined ? null : JSON.stringify(entry.options),
            new Date(write.now).toISOString()
          ]))
        const audit = entries.length === 0 ? [] : [
          sql`INSERT INTO guild_audit_log_entries (id, guild_id, user_id, action_type, target_id, reason, changes, options, created_at)
              SELECT id::bigint, ${guildId}::bigint, user_id::bigint, action_type::integer, target_id, reason, changes::jsonb, options::jsonb,
                created_at::timestamptz
              FROM ${rowsTable(sql, entries, AUDIT_COLUMNS)}`
        ]
        const operations = recordOperations(sql, guildId, writes, fences.of(guildId))
        const rows = rowsInOneStatement(sql, guildId, decisions)
        if (rows !== undefined) {
          const parts = [...rows, ...audit].map((part, i) => sql`${sql.literal(`part${i}`)} AS (${part})`)
          return Effect.asVoid(parts.length === 0 ? operations : sql`WITH ${sql.csv(parts)} ${operations}`)
        }
        return sql.withTransaction(Effect.gen(function*() {
          yield* Effect.provideService(writeDecisions(guildId, decisions), SqlClient.SqlClient, sql)
          for (const statement of audit) yield* statement
          yield* operations
        }))
      }

      return GuildRepo.of({
        load,
        exists: Effect.fn("GuildRepo.exists")((guildId) =>
          sql`SELECT 1 FROM guilds WHERE id = ${guildId}`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)),
        existing: Effect.fn("GuildRepo.existing")((guildIds) =>
          guildIds.length === 0
            ? Effect.succeed([])
            : sql<{ id: string }>`SELECT id FROM guilds WHERE id IN ${sql.in([...new Set(guildIds)])}`.pipe(
              Effect.map((rows) => rows.map((row) => String(row.id))),
              Effect.orDie
            )),
        operationResult: Effect.fn("GuildRepo.operationResult")((operationId) =>
          sql<{ result: unknown }>`SELECT result FROM actor_operations WHERE operation_id = ${operationId}`.pipe(
            Effect.map((rows) => rows[0]?.result),
            Effect.orDie
          )),
        insertGuild,
        operationResults: Effect.fn("GuildRepo.operationResults")((operationIds) => operationResults(sql, operationIds)),
        commitWrites
      })
    })
  )
}
