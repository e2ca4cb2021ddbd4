import { Effect } from "effect"
import { BadRequest, Forbidden, missingAccess, NotFound } from "../../src/model/Errors.ts"
import type { DmEvent } from "./Definitions.ts"
import { type DmState, isGroup, viewFor } from "./State.ts"

/** Who may do what in a DM channel, and whom its changes are told to. */

export const cannotExecuteOnDm = () => new Forbidden({ code: "CANNOT_EXECUTE_ON_DM", message: "Cannot execute action on a DM channel" })
export const cannotMessage = () => new BadRequest({ code: "CANNOT_SEND_MESSAGES_TO_USER", message: "Cannot send messages to this user" })
export const noActiveCall = () => new NotFound({ code: "NO_ACTIVE_CALL", message: "There is no call in this channel" })

/** The state, for a recipient of the channel. */
export const asRecipient = (s: DmState, userId: string): Effect.Effect<DmState, Forbidden> =>
  s.recipients.has(userId) ? Effect.succeed(s) : Effect.fail(missingAccess())

/** The state, for a recipient of a group DM. */
export const asGroupRecipient = (s: DmState, userId: string): Effect.Effect<DmState, Forbidden> =>
  Effect.flatMap(asRecipient(s, userId), (s) => (isGroup(s) ? Effect.succeed(s) : Effect.fail(cannotExecuteOnDm())))

/** In a DM, a block either way (`blocked`, read by the caller) stops messages and calls. */
export const mayMessage = (blocked: boolean): Effect.Effect<void, BadRequest> => (blocked ? Effect.fail(cannotMessage()) : Effect.void)

export const everyone = (s: DmState): ReadonlyArray<string> => [...s.recipients.keys()]

export const tell = (userIds: Iterable<string>, type: string, data: unknown): DmEvent => ({ userIds: [...userIds], type, data })

/** Each user sees the channel their own way (the others are its recipients). */
export const tellEach = (s: DmState, userIds: Iterable<string>, type: string): ReadonlyArray<DmEvent> =>
  [...userIds].map((userId) => tell([userId], type, viewFor(s, userId)))

export const withOpen = (s: DmState, userIds: ReadonlyArray<string>, open: boolean): DmState => ({
  ...s,
  recipients: new Map([...s.recipients].map(([id, r]) => [id, userIds.includes(id) ? { ...r, open } : r]))
})
