import { assert, describe, it } from "@effect/vitest"
import { refusal } from "../../src/auth/Standing.ts"

const NOW = Date.parse("2026-01-01T00:00:00Z")
const clear = {
  banned_at: null,
  temp_banned_until: null,
  suspicious_activity_flags: 0,
  deletion_reason_code: null,
  deletion_scheduled_at: null
}

describe("an operator's hold on an account (Standing.ts)", () => {
  it("nothing held: no refusal; a user's own scheduled deletion is no hold (a login cancels it)", () => {
    assert.isUndefined(refusal(clear, NOW))
    assert.isUndefined(refusal({ ...clear, deletion_scheduled_at: new Date(NOW + 1000) }, NOW))
  })

  it("a temporary ban holds until its end, then lapses by itself", () => {
    const banned = { ...clear, banned_at: new Date(NOW - 1000), temp_banned_until: new Date(NOW + 1000) }
    assert.strictEqual(refusal(banned, NOW)?.code, "ACCOUNT_SUSPENDED_TEMPORARILY")
    assert.isUndefined(refusal(banned, NOW + 1000))
    assert.isUndefined(refusal({ ...banned, temp_banned_until: "2025-12-31T00:00:00Z" }, NOW))
  })

  it("a ban without end, and an operator's deletion, are permanent suspensions", () => {
    assert.strictEqual(refusal({ ...clear, banned_at: new Date(NOW) }, NOW)?.code, "ACCOUNT_SUSPENDED_PERMANENTLY")
    const deleted = { ...clear, deletion_reason_code: 2, deletion_scheduled_at: new Date(NOW + 1000) }
    assert.strictEqual(refusal(deleted, NOW)?.code, "ACCOUNT_SUSPENDED_PERMANENTLY")
  })

  it("suspicious activity names what to verify", () => {
    const refused = refusal({ ...clear, suspicious_activity_flags: 12 }, NOW)
    assert.strictEqual(refused?.code, "ACCOUNT_SUSPICIOUS_ACTIVITY")
    assert.deepStrictEqual(refused?.data, { suspicious_activity_flags: 12 })
  })
})
