import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import * as Path from "node:path"
import { createTransport } from "nodemailer"
import { AppConfig } from "../platform/Config.ts"
import { writeOutboxFile } from "../platform/Outbox.ts"

export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
}

export class MailError extends Schema.TaggedError<MailError>()("MailError", {
  message: Schema.String
}) {}

/**
 * Outgoing email. With `SMTP_URL` it goes to that SMTP server; without it
 * (the embedded default) each message is written to `DATA_DIR/outbox/` as a
 * text file, where an operator reads it.
 */
export class Mailer extends Context.Service<Mailer, {
  readonly send: (mail: Mail) => Effect.Effect<void, MailError>
}>()("guildhall/Mailer") {
  static readonly layerSmtp = (url: string, from: string) =>
    Layer.sync(Mailer, () => {
      const transport = createTransport(url)
      return Mailer.of({
        send: Effect.fn("Mailer.send")((mail) =>
          Effect.tryPromise({
            try: () => transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text }),
            catch: (cause) => new MailError({ message: `SMTP delivery to ${mail.to} failed: ${String(cause)}` })
          }).pipe(Effect.asVoid))
      })
    })

  static readonly layerOutbox = (directory: string, from: string) =>
    Layer.sync(Mailer, () =>
      Mailer.of({
        send: Effect.fn("Mailer.send")((mail) =>
          Effect.tryPromise({
            try: () =>
              writeOutboxFile(
                directory,
                mail.to.replace(/[^\w.@-]/g, "_"),
                `From: ${from}\nTo: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`
              ),
            catch: (cause) => new MailError({ message: `cannot write to the outbox ${directory}: ${String(cause)}` })
          }))
      }))

  static readonly layer = Layer.unwrap(
    Effect.map(AppConfig, (settings) =>
      Option.isSome(settings.smtpUrl)
        ? Mailer.layerSmtp(Redacted.value(settings.smtpUrl.value), settings.mailFrom)
        : Mailer.layerOutbox(Path.join(settings.dataDir, "outbox"), settings.mailFrom))
  )
}
