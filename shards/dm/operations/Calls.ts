import { Effect, Schema } from "effect"
import { unknown } from "../../../src/model/Errors.ts"
import { asRecipient, everyone, mayMessage, noActiveCall, tell } from "../Access.ts"
import { type Decision, read, unchanged, write } from "../Definitions.ts"
import * as Rows from "../Rows.ts"
import { type Call, callData, type DmState } from "../State.ts"

/** `blocked`: a block stands between the actor and the other recipient of a one-to-one DM (read by the caller). */
const Blocked = { blocked: Schema.Boolean }

const callChange = (s: DmState, call: Call | undefined, type: "CALL_CREATE" | "CALL_UPDATE" | "CALL_DELETE"): Decision<null> => ({
  next: { ...s, call },
  reply: null,
  persist: Rows.saveCall(s.id, call),
  events: [tell(everyone(s), type, call === undefined ? { channel_id: s.id } : callData(s, call))]
})

/** Whether the actor may ring the channel's other recipients. */
export const callEligibility = read(
  "CallEligibility",
  Blocked,
  Schema.Struct({ ringable: Schema.Boolean, silent: Schema.Boolean }),
  (s, { blocked }, viewerId) =>
    // Nobody is rung silently here: there is no do-not-disturb for calls yet.
    Effect.map(asRecipient(s, viewerId), (s) => ({ ringable: !blocked && s.recipients.size > 1, silent: false }))
)

/** ring (starts the call if there is none), stop (stops ringing; the actor when nobody is named), end. */
export const callAction = write(
  "CallAction",
  {
    ...Blocked,
    action: Schema.Literals(["ring", "stop", "end"]),
    recipients: Schema.optional(Schema.Array(Schema.String))
  },
  Schema.Null,
  (s, { action, recipients: named, blocked }, { actorId }) =>
    Effect.gen(function*() {
      yield* asRecipient(s, actorId)
      if (named?.some((id) => !s.recipients.has(id)) === true) return yield* unknown("USER")
      if (action === "ring") {
        yield* mayMessage(blocked)
        const targets = (named ?? everyone(s)).filter((id) => id !== actorId)
        const ringing = [...new Set([...(s.call?.ringing ?? []), ...targets])]
        return callChange(s, { ringing, region: s.call?.region ?? null }, s.call === undefined ? "CALL_CREATE" : "CALL_UPDATE")
      }
      if (s.call === undefined) return yield* noActiveCall()
      if (action === "end") return callChange(s, undefined, "CALL_DELETE")
      const stopping = named ?? [actorId]
      return callChange(s, { ...s.call, ringing: s.call.ringing.filter((id) => !stopping.includes(id)) }, "CALL_UPDATE")
    })
)

/** PATCH /channels/{id}/call: the call's voice region (null: automatic; absent: unchanged). */
export const callRegion = write(
  "CallRegion",
  { region: Schema.optional(Schema.NullOr(Schema.String)) },
  Schema.Null,
  (s, { region: asked }, { actorId }) =>
    Effect.gen(function*() {
      yield* asRecipient(s, actorId)
      if (s.call === undefined) return yield* noActiveCall()
      const region = asked === undefined ? s.call.region : asked
      if (region === s.call.region) return unchanged(s, null)
      return callChange(s, { ...s.call, region }, "CALL_UPDATE")
    })
)

export const callWrites = [callAction, callRegion] as const
export const callReads = [callEligibility] as const
