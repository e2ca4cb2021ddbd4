import { assert, expect } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { TestMail } from "./Mail.ts"
import { TestSmsProvider } from "./SmsProvider.ts"
import { startEmbeddedServer } from "./Processes.ts"
import { checkResponseShape } from "./ResponseShapes.ts"

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: unknown
}

/** A string field of a JSON reply, or a failed test naming what was there instead. */
export const field = (body: unknown, key: string): string => {
  const value = typeof body === "object" && body !== null ? (body as Record<string, unknown>)[key] : undefined
  if (typeof value !== "string") throw new Error(`expected a string ${key} in ${JSON.stringify(body)}`)
  return value
}

/** A refusal: its status, and the code of its error object. */
export const expectError = (reply: Pick<Reply, "status" | "body">, status: number, code: string): void => {
  assert.strictEqual(reply.status, status, JSON.stringify(reply.body))
  expect(reply.body).toMatchObject({ code })
}

/** A real API process on a scratch database, driven over real HTTP. */
export class TestApi extends Context.Service<TestApi, {
  readonly baseUrl: string
  readonly databaseUrl: string
  readonly adminKey: string
  readonly request: (method: string, path: string, options?: {
    readonly token?: string
    readonly body?: unknown
    readonly rawBody?: string
    readonly headers?: Record<string, string>
  }) => Effect.Effect<Reply>
  /** Registers a fresh user and answers its session token and id. */
  readonly register: (overrides?: Record<string, unknown>) => Effect.Effect<{ token: string; userId: string; email: string }>
}>()("test/TestApi") {
  static readonly layerWith = (env: Record<string, string> = {}) =>
    Layer.effect(
      TestApi,
      Effect.gen(function*() {
        const adminKey = randomBytes(24).toString("base64url")
        // Rate limits are off (tests register many accounts from one address); the rate-limit tests turn them on.
        const { base: baseUrl, databaseUrl } = yield* startEmbeddedServer({ ADMIN_BOOTSTRAP_KEY: adminKey, ...env })

        const request = (method: string, path: string, options: {
          readonly token?: string
          readonly body?: unknown
          readonly rawBody?: string
          readonly headers?: Record<string, string>
        } = {}) =>
          Effect.promise(async (): Promise<Reply> => {
            const headers: Record<string, string> = { ...options.headers }
            if (options.token !== undefined) headers.authorization = options.token
            let body: string | undefined = options.rawBody
            if (options.body !== undefined) {
              body = JSON.stringify(options.body)
              headers["content-type"] ??= "application/json"
            }
            const response = await fetch(baseUrl + path, { method, headers, body })
            const text = await response.text()
            let parsed: unknown = text
            try {
              parsed = text === "" ? undefined : JSON.parse(text)
            } catch {
              // not JSON: the raw text is what the test sees
            }
            const json = response.headers.get("content-type")?.includes("json") === true
            if (json || text === "") checkResponseShape(method, path, response.status, json ? parsed : undefined)
            return { status: response.status, headers: response.headers, body: parsed }
          })

        const register = (overrides: Record<string, unknown> = {}) =>
          Effect.gen(function*() {
            const email = `u${randomUUID().slice(0, 8)}@example.com`
            const reply = yield* request("POST", "/auth/register", {
              body: { email, password: "correct horse battery", date_of_birth: "2000-01-01", consent: true, ...overrides }
            })
            if (reply.status !== 200) return yield* Effect.die(new Error(`register: ${reply.status} ${JSON.stringify(reply.body)}`))
            return { token: field(reply.body, "token"), userId: field(reply.body, "user_id"), email }
          })

        return { baseUrl, databaseUrl, adminKey, request, register }
      })
    )

  static readonly layer = TestApi.layerWith()

  /** The API with a local SMTP server and SMS provider (TestMail, TestSmsProvider) as its mail and text services. */
  static readonly layerWithOutside = (env: Record<string, string> = {}) =>
    Layer.unwrap(Effect.gen(function*() {
      const mail = yield* TestMail
      const sms = yield* TestSmsProvider
      return TestApi.layerWith({ SMTP_URL: mail.url, SMS_PROVIDER_URL: sms.url, ...env })
    })).pipe(Layer.provideMerge(Layer.mergeAll(TestMail.layer, TestSmsProvider.layer)))
}
