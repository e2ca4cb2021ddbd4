import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import {
  Close,
  decodeIdentify,
  decodePayload,
  decodeResume,
  frame,
  HEARTBEAT_TOLERANCE,
  largeThresholdOf,
  MAX_PAYLOAD_BYTES,
  Op,
  type Payload,
  RATE_LIMIT
} from "./Protocol.ts"
import { sessionIntents } from "./Intents.ts"
import { decodePresenceUpdate, type PresenceUpdate } from "./Presence.ts"
import type { GatewayRegistry } from "./Registry.ts"
import { type Closing, GatewaySession, type Link } from "./Session.ts"
import type { UserId } from "../model/Ids.ts"

/** Who a token authenticates: a user, or a bot (its user id) with its application. */
export interface Identity {
  readonly userId: UserId
  readonly applicationId?: string | undefined
  /** The session token's hash (base64url); none for a bot token. */
  readonly tokenHash?: string | undefined
}

/** What a connection's state machine needs of the process. */
export interface ConnectionStateDeps {
  readonly registry: GatewayRegistry["Service"]
  /** Who a token belongs to, if it is valid. */
  readonly authenticate: (token: string) => Effect.Effect<Identity | undefined>
  /** Registers a new session and sends READY and its guilds (Ready.ts). */
  readonly ready: (session: GatewaySession, identity: Identity, resumeUrl: string) => Effect.Effect<void, unknown>
  readonly heartbeatInterval: number
  readonly resumeUrl: string
  /** The session's client set its status (Presence.ts). */
  readonly presence: (session: GatewaySession, update: PresenceUpdate) => Effect.Effect<void>
  /** Op 8 (MemberRequests.ts). */
  readonly requestMembers: (session: GatewaySession, data: unknown) => Effect.Effect<Closing | undefined>
  /** Op 4 (VoiceStates.ts). */
  readonly voiceState: (session: GatewaySession, data: unknown) => Effect.Effect<Closing | undefined>
}

const ONLINE: PresenceUpdate = { status: "online" }

const closing = (code: number, reason: string): Effect.Effect<Closing> => Effect.succeed({ code, reason })
const carryOn: Effect.Effect<Closing | undefined> = Effect.succeed(undefined)
const decoder = new TextDecoder()

/**
 * One connection's protocol state: not identified, then attached to a
 * session (IDENTIFY makes one, RESUME takes one up again). `receive` handles
 * one client frame and answers a Closing when the connection is to end.
 */
export const makeConnectionState = (deps: ConnectionStateDeps, link: Link) => {
  let session: GatewaySession | undefined
  let lastHeartbeat = Date.now()
  // Payloads in the current window: two numbers a connection, where a ring of arrival times took a kilobyte.
  let windowStart = 0
  let inWindow = 0

  const identify = (payload: Payload) =>
    Effect.gen(function*() {
      const identify = decodeIdentify(payload.d)
      if (Option.isNone(identify)) return yield* closing(Close.DECODE_ERROR, "Invalid IDENTIFY")
      const identity = yield* deps.authenticate(identify.value.token)
      if (identity === undefined) return yield* closing(Close.AUTHENTICATION_FAILED, "Authentication failed")
      const created = new GatewaySession(randomBytes(16).toString("hex"), identity.userId, link)
      created.intents = sessionIntents(identify.value.intents)
      created.largeThreshold = largeThresholdOf(identify.value.large_threshold)
      created.tokenHash = identity.tokenHash
      // Attached before READY is sent: a connection dropped meanwhile still detaches it.
      session = created
      const failed = yield* deps.ready(created, identity, deps.resumeUrl).pipe(
        Effect.as(false),
        Effect.catchCause((cause) => Effect.as(Effect.logWarning("gateway: READY failed", cause), true))
      )
      if (!failed) {
        const presence = decodePresenceUpdate(identify.value.presence)
        yield* deps.presence(created, Option.getOrElse(presence, () => ONLINE))
        return undefined
      }
      session = undefined
      return yield* closing(Close.UNKNOWN_ERROR, "Could not prepare the session")
    })

  const resume = (payload: Payload) =>
    Effect.gen(function*() {
      const resume = decodeResume(payload.d)
      if (Option.isNone(resume)) return yield* closing(Close.DECODE_ERROR, "Invalid RESUME")
      const identity = yield* deps.authenticate(resume.value.token)
      if (identity === undefined) return yield* closing(Close.AUTHENTICATION_FAILED, "Authentication failed")
      const found = deps.registry.find(resume.value.session_id)
      if (found === undefined || found.userId !== identity.userId) {
        link.send(frame(Op.INVALID_SESSION, false))
        return undefined
      }
      const previous = found.connection
      const outcome = found.resume(link, resume.value.seq)
      if (outcome !== "resumed") {
        yield* deps.registry.close(found)
        if (outcome === "ahead") return yield* closing(Close.INVALID_SEQ, "Invalid seq")
        link.send(frame(Op.INVALID_SESSION, false))
        return undefined
      }
      session = found
      found.tokenHash = identity.tokenHash
      found.dispatch({ type: "RESUMED", data: "{}" })
      if (previous !== undefined) {
        yield* Effect.forkDetach(previous.stop({ code: Close.UNKNOWN_ERROR, reason: "Session resumed elsewhere" }))
      }
      return undefined
    })

  const handle = (payload: Payload): Effect.Effect<Closing | undefined> => {
    switch (payload.op) {
      case Op.HEARTBEAT:
        lastHeartbeat = Date.now()
        link.send(frame(Op.HEARTBEAT_ACK))
        return carryOn
      case Op.IDENTIFY:
        return session === undefined ? identify(payload) : closing(Close.ALREADY_AUTHENTICATED, "Already authenticated")
      case Op.RESUME:
        return session === undefined ? resume(payload) : closing(Close.ALREADY_AUTHENTICATED, "Already authenticated")
      case Op.PRESENCE_UPDATE: {
        if (session === undefined) return closing(Close.NOT_AUTHENTICATED, "Not authenticated")
        const update = decodePresenceUpdate(payload.d)
        return Option.isNone(update)
          ? closing(Close.DECODE_ERROR, "Invalid PRESENCE_UPDATE")
          : Effect.as(deps.presence(session, update.value), undefined)
      }
      case Op.REQUEST_GUILD_MEMBERS:
        return session === undefined ? closing(Close.NOT_AUTHENTICATED, "Not authenticated") : deps.requestMembers(session, payload.d)
      case Op.VOICE_STATE_UPDATE:
        return session === undefined ? closing(Close.NOT_AUTHENTICATED, "Not authenticated") : deps.voiceState(session, payload.d)
      default:
        return closing(Close.UNKNOWN_OPCODE, "Unknown opcode")
    }
  }

  return {
    /** The attached session, once identified or resumed. */
    session: () => session,
    /** When the connection times out unless a heartbeat comes first (ms since the epoch). */
    deadline: () => lastHeartbeat + deps.heartbeatInterval * HEARTBEAT_TOLERANCE,
    receive: (raw: string | Uint8Array): Effect.Effect<Closing | undefined> => {
      const size = typeof raw === "string" ? Buffer.byteLength(raw) : raw.byteLength
      if (size > MAX_PAYLOAD_BYTES) return closing(Close.DECODE_ERROR, "Payload too large")
      const now = Date.now()
      if (now - windowStart >= RATE_LIMIT.windowMillis) {
        windowStart = now
        inWindow = 0
      }
      if (++inWindow > RATE_LIMIT.payloads) return closing(Close.RATE_LIMITED, "Rate limited")
      const payload = decodePayload(typeof raw === "string" ? raw : decoder.decode(raw))
      return Option.isNone(payload) ? closing(Close.DECODE_ERROR, "Decode error") : handle(payload.value)
    }
  }
}
