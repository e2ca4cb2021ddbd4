import type { Schema } from "effect"
import type { BadRequest, Forbidden, NotFound } from "../../src/model/Errors.ts"
import * as Actor from "../actors/Definitions.ts"
import type { UserAddressed } from "../actors/Mailbox.ts"
import type { DmState } from "./State.ts"

/**
 * The DM channel actor's definitions (actors/Definitions.ts): every write and
 * read of a DM or group DM channel is one, listed once in operations/index.ts.
 * What a DM write needs of Postgres besides the channel (a block between the
 * recipients, a stored message, the pins, the stickers the author has) the
 * caller reads and hands in, so a write decides from the state and its fields.
 */

export type DmError = BadRequest | Forbidden | NotFound

/** What a write knows besides its own fields. */
export interface DmContext {
  readonly channelId: string
  /** The user acting. */
  readonly actorId: string
  /** A snowflake: a new message takes it as its id unless the channel's last id is above it. */
  readonly operationId: string
  /** Milliseconds since the epoch, fixed by the caller. */
  readonly now: number
}

/** A gateway dispatch to the sessions of `userIds`. */
export type DmEvent = UserAddressed

/** What a DM change carries besides its rows. */
export interface DmChange {
  readonly events: ReadonlyArray<DmEvent>
  /** The last recipient left: the channel is deleted (its `persist` deleted the rows), the actor forgets it. */
  readonly dropsChannel?: boolean
}

export type Decision<Reply> = Actor.Decision<DmState, DmChange, Reply>

/** A decision whose reply is already JSON: what the actor runs, whatever the definition. */
export type Executed = Decision<string>

export type WriteDefinition<Tag extends string, Fields extends Schema.Struct.Fields, Reply extends Actor.ReplyCodec> =
  Actor.WriteDefinition<Tag, Fields, Reply, DmState, DmContext, DmChange, DmError>

export type ReadDefinition<Tag extends string, Fields extends Schema.Struct.Fields, Reply extends Actor.ReplyCodec> =
  Actor.ReadDefinition<Tag, Fields, Reply, DmState, DmError>

export const { read, write } = Actor.definitionsFor<DmState, DmContext, DmChange, DmError>("DM channel")

/** A decision that changes nothing. */
export const unchanged = <Reply>(state: DmState, reply: Reply): Decision<Reply> => ({ next: state, reply, events: [] })
