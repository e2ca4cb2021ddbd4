import { Context, Effect, Layer } from "effect"
import { SMTPServer } from "smtp-server"

export interface ReceivedMail {
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly text: string
}

const decodeQuotedPrintable = (text: string) =>
  text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))

/** Splits a raw message into its headers and its (decoded) text body. */
const parse = (raw: string, to: ReadonlyArray<string>): ReceivedMail => {
  const split = raw.search(/\r?\n\r?\n/)
  const head = split < 0 ? raw : raw.slice(0, split)
  const body = split < 0 ? "" : raw.slice(split).replace(/^\r?\n\r?\n/, "")
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*(?:\\r?\\n[ \\t].*)*)`, "im").exec(head)?.[1]?.replace(/\r?\n[ \t]/g, " ") ?? ""
  const qp = /quoted-printable/i.test(header("Content-Transfer-Encoding"))
  const b64 = /base64/i.test(header("Content-Transfer-Encoding"))
  const text = qp ? decodeQuotedPrintable(body) : b64 ? Buffer.from(body, "base64").toString("utf8") : body
  return { to, subject: header("Subject"), text: text.replace(/\r\n/g, "\n") }
}

/**
 * A real SMTP server on loopback for the scope: the API under test is given
 * `url` as its SMTP_URL, and tests wait for the mail it sends.
 */
export class TestMail extends Context.Service<TestMail, {
  readonly url: string
  /** The next mail to `address` matching `subject`, waiting up to 10 s. */
  readonly next: (address: string, subject?: RegExp) => Effect.Effect<ReceivedMail>
  /** Everything received so far. */
  readonly all: Effect.Effect<ReadonlyArray<ReceivedMail>>
}>()("test/TestMail") {
  static readonly layer = Layer.effect(
    TestMail,
    Effect.gen(function*() {
      const received: Array<ReceivedMail & { taken: boolean }> = []
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<SMTPServer>((resolve, reject) => {
            const smtp = new SMTPServer({
              authOptional: true,
              disabledCommands: ["STARTTLS"],
              onData(stream, session, callback) {
                const chunks: Array<Buffer> = []
                stream.on("data", (chunk: Buffer) => chunks.push(chunk))
                stream.on("end", () => {
                  const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase())
                  received.push({ ...parse(Buffer.concat(chunks).toString("utf8"), to), taken: false })
                  callback()
                })
              }
            })
            smtp.on("error", () => undefined)
            smtp.listen(0, "127.0.0.1", () => resolve(smtp))
            smtp.server.once("error", reject)
          })
        ),
        (smtp) => Effect.promise(() => new Promise<void>((resolve) => smtp.close(() => resolve())))
      )
      const address = server.server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0

      const next = (to: string, subject?: RegExp) =>
        Effect.promise(async () => {
          const deadline = Date.now() + 10_000
          while (Date.now() < deadline) {
            const mail = received.find((m) => !m.taken && m.to.includes(to.toLowerCase()) && (subject?.test(m.subject) ?? true))
            if (mail !== undefined) {
              mail.taken = true
              return mail
            }
            await new Promise((r) => setTimeout(r, 50))
          }
          throw new Error(`no mail to ${to}${subject ? ` matching ${subject}` : ""} within 10 s; received: ${
            JSON.stringify(received.map((m) => [m.to, m.subject]))
          }`)
        })
      return { url: `smtp://127.0.0.1:${port}`, next, all: Effect.sync(() => received.slice()) }
    })
  )
}

/** The first `token=...` of a mail's links. */
export const tokenIn = (mail: ReceivedMail): string => {
  const match = /token=([A-Za-z0-9_-]+)/.exec(mail.text)
  if (match?.[1] === undefined) throw new Error(`no token in mail "${mail.subject}":\n${mail.text}`)
  return match[1]
}
