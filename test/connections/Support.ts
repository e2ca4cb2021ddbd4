import { assert } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { field, type Reply, TestApi } from "../support/Api.ts"
import { FakeDns } from "../support/FakeDns.ts"
import { FakeSocialInstance } from "../support/FakeSocialInstance.ts"

/** The API asking a local DNS server for TXT records and a local instance for profiles. */
export const connectionsApi = Layer.unwrap(Effect.gen(function*() {
  const dns = yield* FakeDns
  const social = yield* FakeSocialInstance
  return TestApi.layerWith({ DNS_SERVER: dns.server, SOCIAL_INSTANCE_URL: social.url })
})).pipe(Layer.provideMerge(Layer.mergeAll(FakeDns.layer({}), FakeSocialInstance.layer)))

/** A domain no other test uses. */
export const newDomain = () => `d${randomUUID().slice(0, 8)}.example.com`
/** A handle no other test uses. */
export const newHandle = () => `h${randomUUID().slice(0, 8)}.example.social`

export const request = (method: string, path: string, token: string | undefined, body?: unknown): Effect.Effect<Reply, never, TestApi> =>
  Effect.flatMap(TestApi, (api) => api.request(method, path, token === undefined ? { body } : { token, body }))

export const start = (token: string, type: string, identifier: string, extra: Record<string, unknown> = {}) =>
  request("POST", "/users/@me/connections", token, { type, identifier, ...extra })

export const verify = (token: string, initiationToken: string, extra: Record<string, unknown> = {}) =>
  request("POST", "/users/@me/connections/verify", token, { initiation_token: initiationToken, ...extra })

export const list = (token: string) => request("GET", "/users/@me/connections", token)

/** Publishes `proof` where the type's check looks: a TXT record at `_guildhall.<name>`, or the profile's description. */
export const publish = (type: "domain" | "social", name: string, proof: string) =>
  Effect.gen(function*() {
    if (type === "domain") (yield* FakeDns).setTxt(`_guildhall.${name}`, ["unrelated=1", proof])
    else (yield* FakeSocialInstance).setDescription(name, `Hello! ${proof}`)
  })

/** Starts, publishes and verifies a connection: its ConnectionResponse. */
export const connect = (token: string, type: "domain" | "social", name: string, visibility?: number) =>
  Effect.gen(function*() {
    const started = yield* start(token, type, name, visibility === undefined ? {} : { visibility_flags: visibility })
    assert.strictEqual(started.status, 201, JSON.stringify(started.body))
    yield* publish(type, name, field(started.body, "token"))
    const created = yield* verify(token, field(started.body, "initiation_token"))
    assert.strictEqual(created.status, 201, JSON.stringify(created.body))
    return { id: field(created.body, "id"), body: created.body }
  })
