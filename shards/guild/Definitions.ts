import type { Schema } from "effect"
import type { BadRequest, Forbidden, NotFound } from "../../src/model/Errors.ts"
import type { LimitReader } from "../../src/model/Limits.ts"
import * as Actor from "../actors/Definitions.ts"
import type { GuildState } from "./State.ts"

/**
 * The guild actor's definitions (actors/Definitions.ts): every write and read
 * inside a guild is one, in a file of its sub-domain (operations/*.ts), listed
 * once in operations/index.ts. A guild write knows its guild, who acts and
 * why; the actor commits its rows, its audit entries and the operation
 * record in one transaction, then publishes the next state and its events.
 */

export type { ReplyCodec } from "../actors/Definitions.ts"
export type { RowSink, RowWrite, SqlValue } from "../actors/Rows.ts"

export type GuildError = BadRequest | Forbidden | NotFound

/** What a write knows besides its own fields. */
export interface WriteContext {
  readonly guildId: string
  /** The user acting. */
  readonly actorId: string
  /** A snowflake: the audit entries of this write take it (and it + 1, ...) as ids. */
  readonly operationId: string
  /** `X-Audit-Log-Reason`. */
  readonly reason: string | null
  /** Milliseconds since the epoch, fixed by the caller. */
  readonly now: number
  /** The instance's limits as this process holds them (src/platform/Limits.ts). */
  readonly limits: LimitReader
}

/** One audit-log entry (AuditLogEntryResponse without id, user and reason, which the actor adds). */
export interface AuditEntry {
  readonly actionType: number
  readonly targetId: string | null
  readonly changes: ReadonlyArray<{ readonly key: string; readonly old_value?: unknown; readonly new_value?: unknown }>
  readonly options?: Readonly<Record<string, string>>
}

/** A gateway dispatch (conventions.md, Gateway): `t` and `d` of the event. */
export interface GuildEvent {
  readonly type: string
  readonly data: unknown
}

/** What a guild change carries besides its rows. */
export interface GuildChange {
  readonly audit: ReadonlyArray<AuditEntry>
  readonly events: ReadonlyArray<GuildEvent>
  /** The write removed the guild (its `persist` deleted the rows): the actor forgets it and answers UNKNOWN_GUILD. */
  readonly dropsGuild?: boolean
}

export type Decision<Reply> = Actor.Decision<GuildState, GuildChange, Reply>

/** A decision whose reply is already JSON: what the actor runs, whatever the definition. */
export type Executed = Decision<string>

export type WriteDefinition<Tag extends string, Fields extends Schema.Struct.Fields, Reply extends Actor.ReplyCodec> =
  Actor.WriteDefinition<Tag, Fields, Reply, GuildState, WriteContext, GuildChange, GuildError>

export type ReadDefinition<Tag extends string, Fields extends Schema.Struct.Fields, Reply extends Actor.ReplyCodec> =
  Actor.ReadDefinition<Tag, Fields, Reply, GuildState, GuildError>

export const { read, write } = Actor.definitionsFor<GuildState, WriteContext, GuildChange, GuildError>("guild")

/** A decision with nothing to audit or announce, e.g. a no-op. */
export const unchanged = <Reply>(state: GuildState, reply: Reply): Decision<Reply> => ({
  next: state,
  reply,
  audit: [],
  events: []
})
