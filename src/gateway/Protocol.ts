import { Schema } from "effect"

/** Gateway opcodes (conventions.md, Gateway). */
export const Op = {
  DISPATCH: 0,
  HEARTBEAT: 1,
  IDENTIFY: 2,
  PRESENCE_UPDATE: 3,
  VOICE_STATE_UPDATE: 4,
  RESUME: 6,
  RECONNECT: 7,
  REQUEST_GUILD_MEMBERS: 8,
  INVALID_SESSION: 9,
  HELLO: 10,
  HEARTBEAT_ACK: 11
} as const

/** Close codes (conventions.md, Gateway). */
export const Close = {
  UNKNOWN_ERROR: 4000,
  UNKNOWN_OPCODE: 4001,
  DECODE_ERROR: 4002,
  NOT_AUTHENTICATED: 4003,
  AUTHENTICATION_FAILED: 4004,
  ALREADY_AUTHENTICATED: 4005,
  INVALID_SEQ: 4007,
  RATE_LIMITED: 4008,
  SESSION_TIMEOUT: 4009,
  INVALID_API_VERSION: 4012
} as const

/** After these the session is over: a client must IDENTIFY again, not RESUME. */
export const ENDS_SESSION: ReadonlySet<number> = new Set([
  Close.AUTHENTICATION_FAILED,
  Close.INVALID_SEQ,
  Close.SESSION_TIMEOUT,
  Close.INVALID_API_VERSION
])

/** The API version of the connection URL (`?v=1`). */
export const API_VERSION = "1"

/** Payloads a client may send per window, and the window (conventions.md: 120 per 60 s). */
export const RATE_LIMIT = { payloads: 120, windowMillis: 60_000 } as const

/** The largest payload a client may send, in bytes; a bigger one closes with 4002. */
export const MAX_PAYLOAD_BYTES = 4096

/**
 * A frame beyond this is refused by the WebSocket layer itself (close 1009)
 * before it is buffered whole: the gateway's own limit above is what clients see.
 */
export const MAX_FRAME_BYTES = 64 * 1024

/**
 * IDENTIFY's `large_threshold`: the member count from which a guild is large (conventions.md:
 * 250). As Discord's gateway, a client may lower it to 50; a value outside is brought within.
 */
export const LARGE_THRESHOLD = { min: 50, max: 250, default: 250 } as const

/** `large_threshold` as asked, within its bounds. */
export const largeThresholdOf = (asked: number | undefined): number =>
  asked === undefined ? LARGE_THRESHOLD.default : Math.min(LARGE_THRESHOLD.max, Math.max(LARGE_THRESHOLD.min, Math.floor(asked)))

/** Dispatches a session keeps for RESUME: a client further behind identifies again. */
export const RESUME_BUFFER = 256

/** How long a dropped session waits for a RESUME. */
export const RESUME_WINDOW_MILLIS = 60_000

/** How much later than the interval a heartbeat may come before the session times out. */
export const HEARTBEAT_TOLERANCE = 1.5

const Token = Schema.String.check(Schema.isMinLength(1))

export const Identify = Schema.Struct({
  token: Token,
  properties: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  presence: Schema.optional(Schema.Unknown),
  intents: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  compress: Schema.optional(Schema.Boolean),
  large_threshold: Schema.optional(Schema.Number),
  shard: Schema.optional(Schema.Array(Schema.Number))
})

export const Resume = Schema.Struct({
  token: Token,
  session_id: Schema.String,
  seq: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})

/** What every client payload is: an opcode and its data. */
export const Payload = Schema.Struct({ op: Schema.Int, d: Schema.optional(Schema.Unknown) })
export type Payload = typeof Payload.Type

export const decodePayload = Schema.decodeUnknownOption(Schema.fromJsonString(Payload))
export const decodeIdentify = Schema.decodeUnknownOption(Identify)
export const decodeResume = Schema.decodeUnknownOption(Resume)

/** A non-dispatch frame. */
export const frame = (op: number, d: unknown = null): string => JSON.stringify({ op, d })

/** A dispatch frame around `data`, JSON already (shared by every session it goes to). */
export const dispatchFrame = (type: string, seq: number, data: string): string =>
  `{"op":0,"t":"${type}","s":${seq},"d":${data}}`
