import { Schema } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { readMessage } from "../actors/Mailbox.ts"
import { ActorErrors } from "../actors/Protocol.ts"
import { ReadQuery, WriteCommand } from "./operations/index.ts"

/**
 * The actor of one DM or group DM channel (entity id: the channel id): the
 * only writer of the channel and its messages, so a channel's messages are
 * numbered in the order it commits them. Its writes and reads are the
 * definitions of operations/, run as the guild actor runs its own.
 */
export const DmErrors = ActorErrors

/**
 * Any write of operations/: decided from the state, committed with its
 * operation record, announced, then answered with the reply's JSON. `now` is
 * fixed by the caller so a redelivery decides the same; `operationId` is a
 * snowflake (a new message may take it as its id).
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
  error: DmErrors
})

export const Read = readMessage(ReadQuery)

export const DmChannel = Entity.make("DmChannel", [Write, Read])
