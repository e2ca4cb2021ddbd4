import type { ChannelResponse } from "../../src/model/Guilds.ts"
import type { UserPartialResponse } from "../../src/model/Users.ts"
import type { MessageResponse } from "../../src/model/Messages.ts"
import { ChannelType } from "../../src/model/Channels.ts"

export interface Recipient {
  readonly user: UserPartialResponse
  /** Whether the channel is in the user's list. */
  readonly open: boolean
}

/** A call while it lasts: who is being rung. */
export interface Call {
  readonly ringing: ReadonlyArray<string>
  readonly region: string | null
}

/** What a DM channel's actor keeps of its channel: everything but the messages, which Postgres serves. */
export interface DmState {
  readonly id: string
  readonly type: typeof ChannelType.DM | typeof ChannelType.GROUP_DM
  readonly name: string | null
  readonly icon: string | null
  readonly ownerId: string | null
  readonly nicks: Readonly<Record<string, string>>
  readonly lastMessageId: string | null
  /** In the order they joined. */
  readonly recipients: ReadonlyMap<string, Recipient>
  readonly call: Call | undefined
  /** Messages sent lately with a nonce, oldest first: a resend of one answers it (Messages.ts, NONCE_TTL_MS). */
  readonly recent: ReadonlyArray<RecentSend>
}

export const isGroup = (s: DmState): boolean => s.type === ChannelType.GROUP_DM

/** The channel as `viewerId` sees it: the other recipients, and for a group its name, icon, owner and nicknames. */
export const viewFor = (s: DmState, viewerId: string): ChannelResponse => ({
  id: s.id,
  type: s.type,
  last_message_id: s.lastMessageId,
  recipients: [...s.recipients.values()].flatMap((r) => (r.user.id === viewerId ? [] : [r.user])),
  ...(isGroup(s)
    ? { ...(s.name === null ? {} : { name: s.name }), icon: s.icon, owner_id: s.ownerId, nicks: s.nicks }
    : {})
})

/** CALL_CREATE and CALL_UPDATE data. */
export const callData = (s: DmState, call: Call) => ({
  channel_id: s.id,
  message_id: null,
  region: call.region,
  ringing: call.ringing,
  voice_states: []
})

/** A message sent lately, remembered for nonce deduplication. */
export interface RecentSend {
  readonly authorId: string
  readonly nonce: string
  readonly sentAt: number
  readonly message: MessageResponse
}
