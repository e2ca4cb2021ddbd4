import { Duration, Schedule } from "effect"

/**
 * How soon an actor whose handler died (a commit failed: Postgres down, its
 * connection killed) is rebuilt, reloading its state from Postgres. The
 * engine's default is one exponential schedule per entity type and runner that
 * never resets: after a handful of defects across all guilds (an outage gives
 * dozens) every later restart of any guild waits 10 s, so a Postgres restart
 * left guilds unanswered for ~10 s after it was back. A fixed short pause
 * keeps a dead database from being hammered and brings each guild back within
 * half a second of it returning.
 */
export const ACTOR_RESTART_PAUSE = Duration.millis(500)

export const actorRestarts = Schedule.spaced(ACTOR_RESTART_PAUSE)
