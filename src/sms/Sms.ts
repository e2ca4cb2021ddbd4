import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import * as Path from "node:path"
import { AppConfig } from "../platform/Config.ts"
import { writeOutboxFile } from "../platform/Outbox.ts"

export class SmsError extends Schema.TaggedError<SmsError>()("SmsError", {
  message: Schema.String
}) {}

/**
 * Outgoing text messages. With `SMS_PROVIDER_URL` each is POSTed there as
 * JSON `{to, body}` (the provider answers 2xx when it accepted it); without it
 * (the embedded default) each is written to `DATA_DIR/outbox/` as a file.
 */
export class Sms extends Context.Service<Sms, {
  readonly send: (to: string, body: string) => Effect.Effect<void, SmsError>
}>()("guildhall/Sms") {
  static readonly layerHttp = (url: string) =>
    Layer.succeed(Sms, Sms.of({
      send: Effect.fn("Sms.send")((to, body) =>
        Effect.tryPromise({
          try: async () => {
            const response = await fetch(url, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ to, body }),
              signal: AbortSignal.timeout(10_000)
            })
            if (!response.ok) throw new Error(`the provider answered ${response.status}`)
          },
          catch: (cause) => new SmsError({ message: `SMS to ${to} failed: ${String(cause)}` })
        }))
    }))

  static readonly layerOutbox = (directory: string) =>
    Layer.succeed(Sms, Sms.of({
      send: Effect.fn("Sms.send")((to, body) =>
        Effect.tryPromise({
          try: () => writeOutboxFile(directory, `sms-${to.replace(/[^\d+]/g, "_")}`, `To: ${to}\n\n${body}\n`),
          catch: (cause) => new SmsError({ message: `cannot write to the outbox ${directory}: ${String(cause)}` })
        }))
    }))

  static readonly layer = Layer.unwrap(
    Effect.map(AppConfig, (settings) =>
      Option.isSome(settings.smsProviderUrl)
        ? Sms.layerHttp(Redacted.value(settings.smsProviderUrl.value))
        : Sms.layerOutbox(Path.join(settings.dataDir, "outbox")))
  )
}
