import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { toUserPartial, UserPartialColumns } from "../../src/model/Users.ts"
import { partialUserColumns } from "../actors/PartialUsers.ts"
import { makeFences } from "../actors/Fences.ts"
import { commitDecided, operationResults } from "../actors/Operations.ts"
import type { DecidedWrite } from "../actors/WriteBatches.ts"
import type { Executed } from "./Definitions.ts"
import type { DmState, Recipient } from "./State.ts"
import { ChannelType } from "../../src/model/Channels.ts"

const decodeNicks = Schema.decodeUnknownSync(Schema.Record(Schema.String, Schema.String))
const decodeType = Schema.decodeUnknownSync(Schema.Literals([ChannelType.DM, ChannelType.GROUP_DM]))
/** A recipient's row as `load` selects it: the partial user's columns and whether the channel is open for them. */
const decodeRecipients = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({
  ...UserPartialColumns.fields,
  is_open: Schema.Boolean
})))

/** The Postgres side of a DM channel's actor: its state, and its writes with their operation records. */
export class DmRepo extends Context.Service<DmRepo, {
  readonly load: (channelId: string) => Effect.Effect<DmState | undefined>
  /** The stored results of those of `operationIds` that committed already. */
  readonly operationResults: (operationIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, unknown>>
  /** Writes' statements and operation records, in order, in one transaction. */
  readonly commitWrites: (channelId: string, writes: ReadonlyArray<DecidedWrite<Executed>>) => Effect.Effect<void, SqlError.SqlError>
}>()("guildhall/DmRepo") {
  static readonly layer = Layer.effect(
    DmRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const fences = makeFences(sql, "dm")
      const load = Effect.fn("DmRepo.load")(function*(channelId: string) {
        yield* fences.claim(channelId)
        const [channel] = yield* sql<{
          type: number
          name: string | null
          icon: string | null
          owner_id: string | null
          nicks: unknown
          last_message_id: string | null
        }>`SELECT c.type, c.name, d.icon, d.owner_id::text AS owner_id, d.nicks, d.last_message_id::text AS last_message_id
           FROM channels c JOIN dm_channels d ON d.channel_id = c.id WHERE c.id = ${channelId} AND c.guild_id IS NULL`
        if (channel === undefined) return undefined
        const rows = yield* decodeRecipients(yield* sql`
          SELECT ${sql.literal(partialUserColumns("u"))}, r.is_open FROM dm_recipients r JOIN users u ON u.id = r.user_id
          WHERE r.channel_id = ${channelId} ORDER BY r.added_at, r.user_id`)
        const [call] = yield* sql<{ ringing: ReadonlyArray<string>; region: string | null }>`
          SELECT ringing::text[] AS ringing, region FROM dm_calls WHERE channel_id = ${channelId}`
        return {
          id: channelId,
          type: decodeType(channel.type),
          name: channel.name,
          icon: channel.icon,
          ownerId: channel.owner_id,
          nicks: decodeNicks(channel.nicks),
          lastMessageId: channel.last_message_id,
          recipients: new Map(rows.map((r): [string, Recipient] => [r.id, { user: toUserPartial(r), open: r.is_open }])),
          call: call === undefined ? undefined : { ringing: call.ringing, region: call.region },
          recent: []
        }
      }, Effect.orDie)

      const commitWrites = (id: string, writes: ReadonlyArray<DecidedWrite<Executed>>) =>
        commitDecided(sql, id, writes, fences.of(id))

      return DmRepo.of({
        load,
        operationResults: Effect.fn("DmRepo.operationResults")((ids) => operationResults(sql, ids)),
        commitWrites
      })
    })
  )
}
