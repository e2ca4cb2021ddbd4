/** Gateway intents: the bits of IDENTIFY's `intents`, as bot libraries send them. */
export const Intent = {
  GUILDS: 1 << 0,
  GUILD_MEMBERS: 1 << 1,
  GUILD_MODERATION: 1 << 2,
  GUILD_EXPRESSIONS: 1 << 3,
  GUILD_WEBHOOKS: 1 << 5,
  GUILD_INVITES: 1 << 6,
  GUILD_VOICE_STATES: 1 << 7,
  GUILD_PRESENCES: 1 << 8,
  GUILD_MESSAGES: 1 << 9,
  GUILD_MESSAGE_REACTIONS: 1 << 10,
  GUILD_MESSAGE_TYPING: 1 << 11,
  MESSAGE_CONTENT: 1 << 15
} as const

/** A session that sent no intents (user clients do not) hears everything. */
export const ALL_INTENTS = -1

/**
 * The intents a session filters by, from what IDENTIFY sent. The production
 * gateway has no intents: its SDKs send 0 (or nothing) and hear every event
 * they may see, so 0 means all here too; Discord clients send the bits they want.
 */
export const sessionIntents = (sent: number | undefined): number => (sent === undefined || sent === 0 ? ALL_INTENTS : sent)

const GUILD_EVENT_INTENTS: ReadonlyMap<string, number> = new Map([
  ...["GUILD_UPDATE", "GUILD_ROLE_CREATE", "GUILD_ROLE_UPDATE", "GUILD_ROLE_DELETE", "CHANNEL_CREATE", "CHANNEL_UPDATE",
    "CHANNEL_DELETE", "CHANNEL_PINS_UPDATE"].map((t) => [t, Intent.GUILDS] as const),
  ...["GUILD_MEMBER_ADD", "GUILD_MEMBER_UPDATE", "GUILD_MEMBER_REMOVE"].map((t) => [t, Intent.GUILD_MEMBERS] as const),
  ...["GUILD_BAN_ADD", "GUILD_BAN_REMOVE", "GUILD_AUDIT_LOG_ENTRY_CREATE"].map((t) => [t, Intent.GUILD_MODERATION] as const),
  ...["GUILD_EMOJIS_UPDATE", "GUILD_STICKERS_UPDATE"].map((t) => [t, Intent.GUILD_EXPRESSIONS] as const),
  ["WEBHOOKS_UPDATE", Intent.GUILD_WEBHOOKS],
  ...["INVITE_CREATE", "INVITE_DELETE"].map((t) => [t, Intent.GUILD_INVITES] as const),
  ["VOICE_STATE_UPDATE", Intent.GUILD_VOICE_STATES],
  ["PRESENCE_UPDATE", Intent.GUILD_PRESENCES],
  ...["MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE", "MESSAGE_DELETE_BULK"].map((t) => [t, Intent.GUILD_MESSAGES] as const),
  ...["MESSAGE_REACTION_ADD", "MESSAGE_REACTION_REMOVE", "MESSAGE_REACTION_REMOVE_ALL", "MESSAGE_REACTION_REMOVE_EMOJI"]
    .map((t) => [t, Intent.GUILD_MESSAGE_REACTIONS] as const),
  ["TYPING_START", Intent.GUILD_MESSAGE_TYPING]
])

/**
 * The intent a guild's dispatch of `type` needs, looked up once per event;
 * GUILD_CREATE and GUILD_DELETE, and events no intent names, go to every session.
 */
export const intentOfGuildEvent = (type: string): number => GUILD_EVENT_INTENTS.get(type) ?? ALL_INTENTS

/** Whether a session that asked for `intents` hears an event needing `needed`. */
export const wants = (intents: number, needed: number): boolean => needed === ALL_INTENTS || (intents & needed) !== 0
