import { Schema } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { CarriedId } from "../../src/model/Ids.ts"
import { readMessage } from "../actors/Mailbox.ts"
import { ActorErrors } from "../actors/Protocol.ts"
import { ReadQuery, WriteCommand } from "./operations/index.ts"

/**
 * The actor of one user (entity id: the user id): the only writer of the
 * person's own state (account, settings, notes), which it keeps in memory.
 * Its writes and reads are the definitions of operations/, run as the guild
 * actor runs its own.
 */
export const UserErrors = ActorErrors

/**
 * Any write of operations/: decided from the state, committed with its
 * operation record, announced, then answered with the reply's JSON. `now` is
 * fixed by the caller so a redelivery decides the same; `operationId` is a
 * snowflake.
 */
export const Write = Rpc.make("Write", {
  payload: {
    operationId: Schema.String,
    actorId: Schema.String,
    now: Schema.Number,
    command: WriteCommand
  },
  primaryKey: (p) => p.operationId,
  success: Schema.String,
  error: UserErrors
})

export const Read = readMessage(ReadQuery)

/**
 * The account changed in Postgres by a flow of its own (email change, MFA,
 * phone, an operator): the actor reads it again, its sessions hear
 * USER_UPDATE, and the answer is the private user's JSON.
 */
export const Refresh = Rpc.make("Refresh", {
  // Who changed the account, for its change log (ChangeLog.ts): the user when absent.
  payload: { actorId: Schema.optional(Schema.String) },
  success: Schema.String,
  error: UserErrors
})

/** Guild actors tell the user's actor when the user joins a guild or leaves it. */
export const Joined = Rpc.make("Joined", { payload: { guildId: CarriedId.GuildId } })

/** The user left the guild or was removed from it. */
export const Left = Rpc.make("Left", { payload: { guildId: CarriedId.GuildId } })

export const User = Entity.make("User", [Write, Read, Refresh, Joined, Left])
