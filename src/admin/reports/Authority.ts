import { Config, Context, Effect, Layer, Option, Schema } from "effect"

export class AuthorityError extends Schema.TaggedError<AuthorityError>()("AuthorityError", { message: Schema.String }) {}

/** What is sent of a report to the child-safety authority. */
export interface AuthorityReport {
  readonly report_id: string
  readonly category: string
  readonly reported_at: string
  readonly additional_info: string | null
  readonly reported_user_id: string | null
  readonly reported_guild_id: string | null
  readonly reported_channel_id: string | null
  readonly reported_message_id: string | null
  readonly message_context: ReadonlyArray<unknown>
}

/** The authority's receipt: its id for the report. */
const Receipt = Schema.Struct({ report_id: Schema.String.check(Schema.isMinLength(1)) })
const decodeReceipt = Schema.decodeUnknownEffect(Receipt)

/**
 * AUTHORITY_REPORT_URL: where reports go, an http(s) URL; unset, submissions fail
 * (and stay queued) with a message that says so. A bad value stops the start.
 */
export const authorityUrlConfig = Config.schema(
  Schema.String.check(
    Schema.isPattern(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: "AUTHORITY_REPORT_URL must be an http(s) URL" }),
    Schema.makeFilter((s: string) => URL.canParse(s) || "AUTHORITY_REPORT_URL must be an http(s) URL")
  ),
  "AUTHORITY_REPORT_URL"
).pipe(Config.option)

/**
 * The child-safety reporting body. A submission is one POST of the report as
 * JSON; a 2xx answer with `{report_id}` is its receipt, anything else a failure
 * the caller records and retries.
 */
export class Authority extends Context.Service<Authority, {
  readonly submit: (report: AuthorityReport) => Effect.Effect<string, AuthorityError>
}>()("guildhall/Authority") {
  static readonly layerHttp = (url: string) =>
    Layer.succeed(Authority, Authority.of({
      submit: Effect.fn("Authority.submit")(function*(report: AuthorityReport) {
        const body = yield* Effect.tryPromise({
          try: async () => {
            const response = await fetch(url, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(report),
              signal: AbortSignal.timeout(10_000)
            })
            if (!response.ok) throw new Error(`the authority answered ${response.status}`)
            const json: unknown = await response.json()
            return json
          },
          catch: (cause) => new AuthorityError({ message: cause instanceof Error ? cause.message : String(cause) })
        })
        const receipt = yield* decodeReceipt(body).pipe(
          Effect.mapError(() => new AuthorityError({ message: "the authority's answer had no report_id" }))
        )
        return receipt.report_id
      })
    }))

  static readonly layerUnconfigured = Layer.succeed(Authority, Authority.of({
    submit: () => Effect.fail(new AuthorityError({ message: "AUTHORITY_REPORT_URL is not set" }))
  }))

  static readonly layer = Layer.unwrap(Effect.map(authorityUrlConfig, (url) =>
    Option.isSome(url) ? Authority.layerHttp(url.value) : Authority.layerUnconfigured))
}
