import { Effect, Schema } from "effect"
import { invalidField } from "../../model/Errors.ts"
import { MessageCreateRequest } from "../../model/MessageRequests.ts"

/** ScheduledMessageRequestSchema: a message create request and when to send it, as wall time in a time zone. */
export const ScheduledMessageRequest = Schema.Struct({
  ...MessageCreateRequest.fields,
  scheduled_local_at: Schema.String.check(Schema.isMaxLength(64)),
  timezone: Schema.String.check(Schema.isMaxLength(64))
})
export type ScheduledMessageRequest = typeof ScheduledMessageRequest.Type

/** The create request inside a scheduled one. */
export const payloadOf = ({ scheduled_local_at: _at, timezone: _tz, ...request }: ScheduledMessageRequest): MessageCreateRequest =>
  request

/** Scheduling reaches this far ahead (SCHEDULED_MESSAGES_MAX_30_DAYS). */
export const MAX_AHEAD_MS = 30 * 24 * 3600_000

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?(Z|[+-]\d{2}:?\d{2})?$/

/** Offset of `timezone` from UTC at the instant `ms`, in ms (wall time minus UTC). */
const offsetAt = (format: Intl.DateTimeFormat, ms: number): number => {
  const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, Number(p.value)]))
  const wall = Date.UTC(parts.year ?? 0, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
  return wall - (ms - (((ms % 1000) + 1000) % 1000))
}

const zoneFormat = (timezone: string): Intl.DateTimeFormat | undefined => {
  try {
    return new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric"
    })
  } catch {
    return undefined
  }
}

/**
 * The instant a scheduled message is due: `scheduled_local_at` read as wall
 * time in `timezone` (an explicit offset in it wins), which must lie in the
 * next 30 days after `now`.
 */
export const dueInstant = (request: Pick<ScheduledMessageRequest, "scheduled_local_at" | "timezone">, now: number) =>
  Effect.gen(function*() {
    const format = zoneFormat(request.timezone)
    if (format === undefined) return yield* invalidField("timezone", "INVALID_TIMEZONE_IDENTIFIER", "Not an IANA time zone")
    const m = LOCAL.exec(request.scheduled_local_at)
    const badTime = invalidField("scheduled_local_at", "INVALID_DATETIME_FOR_SCHEDULED_SEND", "Not a date and time")
    if (m === null) return yield* badTime
    const part = (i: number) => Number(m[i] ?? "0")
    const [year, month, day, hour] = [part(1), part(2), part(3), part(4)]
    const wall = Date.UTC(year, month - 1, day, hour, part(5), part(6), Number((m[7] ?? "0").padEnd(3, "0")))
    const check = new Date(wall)
    if (Number.isNaN(wall) || check.getUTCDate() !== day || check.getUTCMonth() + 1 !== month || hour > 23 || part(5) > 59) {
      return yield* badTime
    }
    let at = Date.parse(request.scheduled_local_at)
    if (m[8] === undefined) {
      // Two passes: the offset at the guessed instant, then at the instant it gives (DST changes in between).
      at = wall - offsetAt(format, wall)
      at = wall - offsetAt(format, at)
    }
    if (Number.isNaN(at)) return yield* badTime
    if (at <= now) return yield* invalidField("scheduled_local_at", "SCHEDULED_TIME_MUST_BE_FUTURE", "The time has passed")
    if (at > now + MAX_AHEAD_MS) {
      return yield* invalidField("scheduled_local_at", "SCHEDULED_MESSAGES_MAX_30_DAYS", "At most 30 days ahead")
    }
    return at
  })
