/** Permission bits (conventions.md, Permissions). */
export const Permission = {
  CREATE_INSTANT_INVITE: 1n << 0n,
  KICK_MEMBERS: 1n << 1n,
  BAN_MEMBERS: 1n << 2n,
  ADMINISTRATOR: 1n << 3n,
  MANAGE_CHANNELS: 1n << 4n,
  MANAGE_GUILD: 1n << 5n,
  ADD_REACTIONS: 1n << 6n,
  VIEW_AUDIT_LOG: 1n << 7n,
  PRIORITY_SPEAKER: 1n << 8n,
  STREAM: 1n << 9n,
  VIEW_CHANNEL: 1n << 10n,
  SEND_MESSAGES: 1n << 11n,
  SEND_TTS_MESSAGES: 1n << 12n,
  MANAGE_MESSAGES: 1n << 13n,
  EMBED_LINKS: 1n << 14n,
  ATTACH_FILES: 1n << 15n,
  READ_MESSAGE_HISTORY: 1n << 16n,
  MENTION_EVERYONE: 1n << 17n,
  USE_EXTERNAL_EMOJIS: 1n << 18n,
  CONNECT: 1n << 20n,
  SPEAK: 1n << 21n,
  MUTE_MEMBERS: 1n << 22n,
  DEAFEN_MEMBERS: 1n << 23n,
  MOVE_MEMBERS: 1n << 24n,
  USE_VAD: 1n << 25n,
  CHANGE_NICKNAME: 1n << 26n,
  MANAGE_NICKNAMES: 1n << 27n,
  MANAGE_ROLES: 1n << 28n,
  MANAGE_WEBHOOKS: 1n << 29n,
  MANAGE_EXPRESSIONS: 1n << 30n,
  USE_EXTERNAL_STICKERS: 1n << 37n,
  MODERATE_MEMBERS: 1n << 40n,
  CREATE_EXPRESSIONS: 1n << 43n,
  PIN_MESSAGES: 1n << 51n,
  BYPASS_SLOWMODE: 1n << 52n,
  UPDATE_RTC_REGION: 1n << 53n
} as const

export const ALL_PERMISSIONS = Object.values(Permission).reduce((all, bit) => all | bit, 0n)

export const DEFAULT_EVERYONE_PERMISSIONS = [
  Permission.CREATE_INSTANT_INVITE,
  Permission.ADD_REACTIONS,
  Permission.STREAM,
  Permission.VIEW_CHANNEL,
  Permission.SEND_MESSAGES,
  Permission.EMBED_LINKS,
  Permission.ATTACH_FILES,
  Permission.READ_MESSAGE_HISTORY,
  Permission.USE_EXTERNAL_EMOJIS,
  Permission.CONNECT,
  Permission.SPEAK,
  Permission.USE_VAD,
  Permission.CHANGE_NICKNAME,
  Permission.USE_EXTERNAL_STICKERS,
  Permission.CREATE_EXPRESSIONS
].reduce((all, bit) => all | bit, 0n)

export const has = (granted: bigint, wanted: bigint): boolean => (granted & wanted) === wanted
