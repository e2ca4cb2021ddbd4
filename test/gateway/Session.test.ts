import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { RESUME_BUFFER } from "../../src/gateway/Protocol.ts"
import { GatewaySession, type Link } from "../../src/gateway/Session.ts"
import { CarriedId } from "../../src/model/Ids.ts"

const isDispatch = Schema.is(Schema.Struct({ t: Schema.String, s: Schema.Number }))

/** A link that records the frames sent to it as [t, s]. */
const recording = () => {
  const frames: Array<[string, number]> = []
  const link: Link = {
    send: (frame) => {
      const parsed: unknown = JSON.parse(frame)
      if (isDispatch(parsed)) frames.push([parsed.t, parsed.s])
    },
    stop: () => Effect.void
  }
  return { frames, link }
}

const event = (type: string) => ({ type, data: "{}" })

/** A session that dispatched `sent` to its client, lost the connection, then dispatched `meanwhile`. */
const droppedBetween = (sent: ReadonlyArray<string>, meanwhile: ReadonlyArray<string>) => {
  const first = recording()
  const session = new GatewaySession("s", CarriedId.UserId.make("u"), first.link)
  for (const type of sent) session.dispatch(event(type))
  session.detach(first.link, 0)
  for (const type of meanwhile) session.dispatch(event(type))
  return session
}

describe("a gateway session", () => {
  it("numbers its dispatches and holds them while it is being prepared", () => {
    const { frames, link } = recording()
    const session = new GatewaySession("s", CarriedId.UserId.make("u"), link)
    session.hold()
    session.dispatch(event("GUILD_UPDATE"))
    assert.deepStrictEqual(frames, [])
    session.release([event("READY"), event("GUILD_CREATE")])
    session.dispatch(event("CHANNEL_CREATE"))
    assert.deepStrictEqual(frames, [["READY", 1], ["GUILD_CREATE", 2], ["GUILD_UPDATE", 3], ["CHANNEL_CREATE", 4]])
  })

  it("waits for every hold: what is released first queues behind what came before it", () => {
    const { frames, link } = recording()
    const session = new GatewaySession("s", CarriedId.UserId.make("u"), link)
    session.hold()
    session.hold()
    session.dispatch(event("A"))
    session.release([event("GUILD_CREATE")])
    assert.deepStrictEqual(frames, [])
    session.release([event("READY")])
    assert.deepStrictEqual(frames.map(([t]) => t), ["READY", "A", "GUILD_CREATE"])
  })

  it("resumes with what was dispatched after the client's seq, keeps it counting, and refuses a seq it never sent", () => {
    const first = recording()
    const session = new GatewaySession("s", CarriedId.UserId.make("u"), first.link)
    session.dispatch(event("READY"))
    session.detach(first.link, 0)
    session.dispatch(event("ONE"))
    session.dispatch(event("TWO"))
    const second = recording()
    assert.strictEqual(session.resume(second.link, 9), "ahead")
    assert.strictEqual(session.resume(second.link, 1), "resumed")
    session.dispatch(event("THREE"))
    assert.deepStrictEqual(second.frames, [["ONE", 2], ["TWO", 3], ["THREE", 4]])
    assert.strictEqual(session.connection, second.link)
    assert.strictEqual(session.detachedAt, undefined)
  })

  it("keeps the last RESUME_BUFFER dispatches: a client further behind must identify again", () => {
    const first = recording()
    const session = new GatewaySession("s", CarriedId.UserId.make("u"), first.link)
    session.detach(first.link, 0)
    for (let i = 0; i < RESUME_BUFFER + 10; i++) session.dispatch(event(`E${i + 1}`))
    assert.strictEqual(session.resume(recording().link, 5), "expired")
    const late = recording()
    assert.strictEqual(session.resume(late.link, 10), "resumed")
    assert.strictEqual(late.frames.length, RESUME_BUFFER)
    assert.deepStrictEqual(late.frames[0], ["E11", 11])
    assert.deepStrictEqual(late.frames.at(-1), [`E${RESUME_BUFFER + 10}`, RESUME_BUFFER + 10])
  })

  it("does not keep READY for a replay: a client that resumes has had it", () => {
    const session = droppedBetween(["READY", "CHANNEL_CREATE"], ["ONE"])
    const second = recording()
    assert.strictEqual(session.resume(second.link, 0), "resumed")
    assert.deepStrictEqual(second.frames, [["CHANNEL_CREATE", 2], ["ONE", 3]])
  })

  it("does not keep GUILD_CREATE: a client that missed one must identify again; one that had it resumes", () => {
    const session = droppedBetween(["READY", "GUILD_CREATE", "ONE"], ["TWO"])
    const missedIt = recording()
    assert.strictEqual(session.resume(missedIt.link, 1), "expired")
    assert.deepStrictEqual(missedIt.frames, [], "nothing is sent before the refusal")
    assert.strictEqual(session.connection, undefined)
    const hadIt = recording()
    assert.strictEqual(session.resume(hadIt.link, 2), "resumed")
    assert.deepStrictEqual(hadIt.frames, [["ONE", 3], ["TWO", 4]])
  })

  it("ignores the end of a connection that no longer carries it", () => {
    const first = recording()
    const second = recording()
    const session = new GatewaySession("s", CarriedId.UserId.make("u"), first.link)
    session.dispatch(event("READY"))
    assert.strictEqual(session.resume(second.link, 1), "resumed")
    session.detach(first.link, 5)
    assert.strictEqual(session.connection, second.link)
  })
})
