import type { Effect } from "effect"
import { ALL_INTENTS } from "./Intents.ts"
import { dispatchFrame, LARGE_THRESHOLD, RESUME_BUFFER } from "./Protocol.ts"
import type { Dispatch } from "../model/Dispatch.ts"
import type { UserId } from "../model/Ids.ts"


/** Why the server ends a connection: the close code, and whether the client is first told to RECONNECT. */
export interface Closing {
  readonly code: number
  readonly reason: string
  readonly reconnect?: boolean
}

/** One client connection: where a session's frames go while the client is attached. */
export interface Link {
  readonly send: (frame: string) => void
  /** Ends the connection, and waits until it has ended. */
  readonly stop: (closing: Closing) => Effect.Effect<void>
}

/**
 * Dispatches numbered for a session of this process so far (its sessions'
 * sequences together), read when metrics are scraped: a plain number, since a
 * guild's event is counted once for each session it goes to.
 */
let dispatched = 0
export const dispatchesSoFar = (): number => dispatched

/** A dispatch not kept for RESUME whose loss the client must be told of: a RESUME across it is refused. */
const NOT_REPLAYABLE = Symbol("NotReplayable")

/** How a RESUME went: resumed, asked for dispatches never made, or for some no longer kept. */
export type Resumption = "resumed" | "ahead" | "expired"

/**
 * A gateway session: its sequence, the guilds it hears from, and its last
 * dispatches for RESUME. It outlives its connection for a while, so a client
 * whose connection dropped resumes where it was; dispatches made meanwhile are
 * numbered and kept as if they had been sent.
 */
export class GatewaySession {
  readonly guilds = new Set<string>()
  /** IDENTIFY's intents bitfield (Intents.ts). */
  intents: number = ALL_INTENTS
  /** IDENTIFY's `large_threshold`: from this many members a guild is large, and its GUILD_CREATE lists only the session's own member. */
  largeThreshold: number = LARGE_THRESHOLD.default
  /** The hash (base64url) of the session token last identified or resumed with: its revocation ends this session. */
  tokenHash: string | undefined
  private seq = 0
  /**
   * The last dispatches, oldest at `head` once full: entry i has sequence `oldestSeq + i`.
   * READY is not kept (a hole): the client that resumes knows the session from it, and
   * its data, the largest of a session's own, would stay for as long as the session.
   * GUILD_CREATE is not kept either (NOT_REPLAYABLE): it lists a guild's members, up to
   * `large_threshold` of them, and an idle session would hold it until 256 newer dispatches
   * push it out (65 KB a session for a guild of 200); a client that missed one is told to
   * identify again, which sends it the guild anyway.
   */
  private readonly recent: Array<Dispatch | typeof NOT_REPLAYABLE | undefined> = []
  private head = 0
  /** While the session is being prepared (READY, a guild it joined), its dispatches wait here. */
  private held: Array<Dispatch> = []
  private holds = 0
  private link: Link | undefined
  /** When the connection dropped (ms), while no client is attached. */
  detachedAt: number | undefined

  readonly id: string
  readonly userId: UserId

  constructor(id: string, userId: UserId, link: Link) {
    this.id = id
    this.userId = userId
    this.link = link
  }

  get sequence(): number {
    return this.seq
  }

  /** The connection attached, if any. */
  get connection(): Link | undefined {
    return this.link
  }

  /** Numbers the dispatch, keeps it for RESUME and sends it if a client is attached. */
  dispatch(dispatch: Dispatch): void {
    if (this.holds > 0) this.held.push(dispatch)
    else this.emit(dispatch)
  }

  /** Dispatches wait until `release`: what the session is being told first is not ready yet. */
  hold(): void {
    this.holds++
  }

  /** Sends `first`, then what waited meanwhile (once no other hold remains). */
  release(first: ReadonlyArray<Dispatch>): void {
    this.holds--
    if (this.holds > 0) {
      this.held.push(...first)
      return
    }
    const waiting = this.held
    this.held = []
    for (const d of first) this.emit(d)
    for (const d of waiting) this.emit(d)
  }

  /** The connection `link` ended; a connection that resumed the session since is not affected. */
  detach(link: Link, now: number): void {
    if (this.link !== link) return
    this.link = undefined
    this.detachedAt = now
  }

  /**
   * Attaches a client that saw dispatches up to `seq`: the later ones are sent
   * to it, in order. A connection still attached is the caller's to end.
   */
  resume(link: Link, seq: number): Resumption {
    const oldest = this.seq - this.recent.length + 1
    if (seq > this.seq) return "ahead"
    if (seq < oldest - 1) return "expired"
    const missed: Array<readonly [number, Dispatch]> = []
    for (let s = seq + 1; s <= this.seq; s++) {
      const d = this.recent[(this.head + s - oldest) % this.recent.length]
      if (d === NOT_REPLAYABLE) return "expired"
      if (d !== undefined) missed.push([s, d])
    }
    for (const [s, d] of missed) link.send(dispatchFrame(d.type, s, d.data))
    this.link = link
    this.detachedAt = undefined
    return "resumed"
  }

  private emit(d: Dispatch): void {
    this.seq++
    dispatched++
    const kept = d.type === "READY" ? undefined : d.type === "GUILD_CREATE" ? NOT_REPLAYABLE : d
    if (this.recent.length < RESUME_BUFFER) {
      this.recent.push(kept)
    } else {
      this.recent[this.head] = kept
      this.head = (this.head + 1) % RESUME_BUFFER
    }
    this.link?.send(dispatchFrame(d.type, this.seq, d.data))
  }
}
