import type { Schema } from "effect"
import type { BadRequest, Forbidden, NotFound } from "../../src/model/Errors.ts"
import * as Actor from "../actors/Definitions.ts"
import type { UserAddressed } from "../actors/Mailbox.ts"
import type { UserState } from "./State.ts"

/**
 * The user actor's definitions (actors/Definitions.ts): every write and read of
 * a person's own state is one, listed once in operations/index.ts. What a write
 * needs of Postgres besides the state (a password's new hash, whether a tag is
 * free) the caller settles and hands in, so a write decides from the state and
 * its fields.
 */

export type UserError = BadRequest | Forbidden | NotFound

/** What a write knows besides its own fields. */
export interface UserContext {
  readonly userId: string
  /** Who acts: the user, or an operator or a job on their behalf. */
  readonly actorId: string
  readonly operationId: string
  /** Milliseconds since the epoch, fixed by the caller. */
  readonly now: number
}

/** A gateway dispatch to the sessions of `userIds`. */
export type UserEvent = UserAddressed

/** What a change of the user carries besides its rows. */
export interface UserChange {
  readonly events: ReadonlyArray<UserEvent>
}

export type Decision<Reply> = Actor.Decision<UserState, UserChange, Reply>

/** A decision whose reply is already JSON: what the actor runs, whatever the definition. */
export type Executed = Decision<string>

export type WriteDefinition<Tag extends string, Fields extends Schema.Struct.Fields, Reply extends Actor.ReplyCodec> =
  Actor.WriteDefinition<Tag, Fields, Reply, UserState, UserContext, UserChange, UserError>

export type ReadDefinition<Tag extends string, Fields extends Schema.Struct.Fields, Reply extends Actor.ReplyCodec> =
  Actor.ReadDefinition<Tag, Fields, Reply, UserState, UserError>

export type { ReplyCodec } from "../actors/Definitions.ts"

export const { read, write } = Actor.definitionsFor<UserState, UserContext, UserChange, UserError>("user")

/** A decision that changes nothing. */
export const unchanged = <Reply>(state: UserState, reply: Reply): Decision<Reply> => ({ next: state, reply, events: [] })

/** An event for the user's own sessions. */
export const toSelf = (context: UserContext, type: string, data: unknown): UserEvent => ({ userIds: [context.userId], type, data })
