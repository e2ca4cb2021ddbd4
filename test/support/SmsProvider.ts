import { Context, Effect, Layer } from "effect"
import { randomInt } from "node:crypto"
import { localHttpServer } from "./LocalHttp.ts"

export interface Text {
  readonly to: string
  readonly body: string
}

/** A fake SMS provider over real HTTP on loopback: the API's SMS_PROVIDER_URL in tests. */
export class TestSmsProvider extends Context.Service<TestSmsProvider, {
  readonly url: string
  /** The next text to `to`, waiting up to 10 s. */
  readonly next: (to: string) => Effect.Effect<Text>
}>()("test/TestSmsProvider") {
  static readonly layer = Layer.effect(
    TestSmsProvider,
    Effect.gen(function*() {
      const received: Array<Text & { taken: boolean }> = []
      const base = yield* localHttpServer((request, response) => {
        let body = ""
        request.on("data", (chunk: Buffer) => (body += chunk.toString()))
        request.on("end", () => {
          try {
            const parsed: unknown = JSON.parse(body)
            if (typeof parsed === "object" && parsed !== null && "to" in parsed && "body" in parsed) {
              received.push({ to: String(parsed.to), body: String(parsed.body), taken: false })
              response.writeHead(202).end()
              return
            }
          } catch {
            // falls through to 400
          }
          response.writeHead(400).end()
        })
      })
      const next = (to: string) =>
        Effect.promise(async () => {
          const deadline = Date.now() + 10_000
          while (Date.now() < deadline) {
            const text = received.find((t) => !t.taken && t.to === to)
            if (text !== undefined) {
              text.taken = true
              return text
            }
            await new Promise((r) => setTimeout(r, 50))
          }
          throw new Error(`no text to ${to} within 10 s`)
        })
      return { url: `${base}/messages`, next }
    })
  )
}

/** A number no other test uses: +1 555 and seven random digits. */
export const newPhone = () => `+1555${String(randomInt(0, 10_000_000)).padStart(7, "0")}`

/** The 6-digit code of the next text to `phone`. */
export const textedCode = (phone: string) =>
  Effect.gen(function*() {
    const text = yield* Effect.flatMap(TestSmsProvider, (sms) => sms.next(phone))
    const match = /\b(\d{6})\b/.exec(text.body)
    if (match?.[1] === undefined) throw new Error(`no code in the text "${text.body}"`)
    return match[1]
  })
