import { assert, expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { FeaturedResponse, GifResponse } from "../../src/gifs/Schemas.ts"
import { createApplication } from "../oauth2/Fixtures.ts"
import { expectError, TestApi } from "../support/Api.ts"
import { EMPTY_TERM, FakeGifa, fakeResult, GIFA_KEY, STILLS_TERM } from "./FakeGifa.ts"

const Gifs = Schema.decodeUnknownSync(Schema.Array(GifResponse))
const Featured = Schema.decodeUnknownSync(FeaturedResponse)
const Terms = Schema.decodeUnknownSync(Schema.Array(Schema.String))

/** The API with the first provider at a fake on a local port; a silent provider is given up on after 1 s. */
const api = Layer.unwrap(Effect.map(FakeGifa, (fake) =>
  TestApi.layerWith({ GIFA_API_URL: fake.url, GIFA_API_KEY: GIFA_KEY, GIF_PROVIDER_TIMEOUT_MS: "1000" }))).pipe(
  Layer.provideMerge(FakeGifa.layer)
)

/** What a fake result becomes on our wire. */
const mapped = (term: string, n: number) => {
  const result = fakeResult(term, n)
  return {
    id: result.id,
    title: result.title === "" ? result.content_description : result.title,
    url: result.itemurl,
    src: result.media_formats.webm.url,
    proxy_src: result.media_formats.webm.url,
    width: result.media_formats.webm.dims[0],
    height: result.media_formats.webm.dims[1]
  }
}

layer(api, { timeout: 120_000, excludeTestServices: true })("GIF provider gifa", (it) => {
  it.effect("search maps the provider's results and asks it with the key, the locale and the video format", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const fake = yield* FakeGifa
      const { token } = yield* api.register()
      const reply = yield* api.request("GET", "/gifa/search?q=cat%20typing", { token })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      // Exactly the documented fields, nothing of the provider's own.
      assert.deepStrictEqual(reply.body, [mapped("cat typing", 0), mapped("cat typing", 1), mapped("cat typing", 2)])
      const [sent] = yield* fake.requests("search")
      assert.isDefined(sent)
      expect(Object.fromEntries(sent?.query ?? [])).toMatchObject({
        key: GIFA_KEY,
        q: "cat typing",
        locale: "en_US",
        country: "US",
        limit: "50",
        media_filter: "webm",
        contentfilter: "low"
      })

      const localized = yield* api.request("GET", "/gifa/search?q=gato&locale=pt-BR&limit=2", { token })
      assert.deepStrictEqual(Gifs(localized.body), [mapped("gato", 0), mapped("gato", 1)])
      const gato = (yield* fake.requests("search")).find((r) => r.query.get("q") === "gato")
      expect(Object.fromEntries(gato?.query ?? [])).toMatchObject({ locale: "pt_BR", country: "BR", limit: "2" })

      // Results without the video format are left out; none at all is an empty list.
      assert.deepStrictEqual(Gifs((yield* api.request("GET", `/gifa/search?q=${encodeURIComponent(STILLS_TERM)}`, { token })).body), [])
      assert.deepStrictEqual(Gifs((yield* api.request("GET", `/gifa/search?q=${EMPTY_TERM}`, { token })).body), [])
    }))

  it.effect("identical searches within the minute are one upstream call; another locale or term is another", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const fake = yield* FakeGifa
      const { token } = yield* api.register()
      const other = yield* api.register()
      const burst = yield* Effect.all([
        api.request("GET", "/gifa/search?q=burst", { token }),
        api.request("GET", "/gifa/search?q=burst", { token }),
        api.request("GET", "/gifa/search?q=burst", { token: other.token })
      ], { concurrency: "unbounded" })
      assert.deepStrictEqual(burst.map((r) => r.status), [200, 200, 200])
      assert.deepStrictEqual(burst[0]?.body, burst[2]?.body)
      const again = yield* api.request("GET", "/gifa/search?q=burst", { token })
      assert.deepStrictEqual(again.body, burst[0]?.body)
      const count = (q: string) => Effect.map(fake.requests("search"), (all) => all.filter((r) => r.query.get("q") === q).length)
      assert.strictEqual(yield* count("burst"), 1)

      yield* api.request("GET", "/gifa/search?q=burst&locale=fr", { token })
      yield* api.request("GET", "/gifa/search?q=burst&limit=10", { token })
      assert.strictEqual(yield* count("burst"), 3)
    }))

  it.effect("trending-gifs maps the provider's featured results", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const fake = yield* FakeGifa
      const { token } = yield* api.register()
      const reply = yield* api.request("GET", "/gifa/trending-gifs?locale=de", { token })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assert.deepStrictEqual(Gifs(reply.body), [mapped("trending", 0), mapped("trending", 1), mapped("trending", 2)])
      const sent = (yield* fake.requests("featured")).find((r) => r.query.get("locale") === "de")
      expect(Object.fromEntries(sent?.query ?? [])).toMatchObject({ key: GIFA_KEY, limit: "50", media_filter: "webm" })
    }))

  it.effect("featured is one trending result and the featured categories, each previewed by its first result", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const fake = yield* FakeGifa
      const { token } = yield* api.register()
      const reply = yield* api.request("GET", "/gifa/featured?locale=ja", { token })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      const featured = Featured(reply.body)
      assert.deepStrictEqual(featured.gifs, [mapped("trending", 0)])
      // The category whose search finds nothing has no preview and is left out.
      assert.deepStrictEqual(featured.categories, [
        { name: "agree", src: mapped("agree", 0).src, proxy_src: mapped("agree", 0).proxy_src },
        { name: "applause", src: mapped("applause", 0).src, proxy_src: mapped("applause", 0).proxy_src }
      ])
      const categories = (yield* fake.requests("categories")).filter((r) => r.query.get("locale") === "ja")
      expect(categories.map((r) => Object.fromEntries(r.query))).toMatchObject([{ type: "featured", key: GIFA_KEY }])

      assert.deepStrictEqual((yield* api.request("GET", "/gifa/featured?locale=ja", { token })).body, reply.body)
      assert.strictEqual((yield* fake.requests("categories")).filter((r) => r.query.get("locale") === "ja").length, 1)
    }))

  it.effect("suggest answers the provider's completions", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const reply = yield* api.request("GET", "/gifa/suggest?q=hap", { token })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assert.deepStrictEqual(Terms(reply.body), ["hap", "hap meme", "hap funny"])
    }))

  it.effect("register-share tells the provider every time (never cached) and answers 204", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const fake = yield* FakeGifa
      const { token } = yield* api.register()
      const id = mapped("share", 1).id
      for (let i = 0; i < 2; i++) {
        const reply = yield* api.request("POST", "/gifa/register-share", { token, body: { id, q: "share", locale: "en-GB" } })
        assert.strictEqual(reply.status, 204, JSON.stringify(reply.body))
      }
      const shares = (yield* fake.requests("registershare")).filter((r) => r.query.get("id") === id)
      assert.strictEqual(shares.length, 2)
      expect(Object.fromEntries(shares[0]?.query ?? [])).toMatchObject({ key: GIFA_KEY, q: "share", locale: "en_GB", country: "GB" })

      const bare = yield* api.request("POST", "/gifa/register-share", { token, body: { id, q: null } })
      assert.strictEqual(bare.status, 204, JSON.stringify(bare.body))
    }))

  it.effect("bad queries and bodies are 400 with the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      for (
        const path of [
          "/gifa/search",
          "/gifa/search?q=",
          `/gifa/search?q=${"a".repeat(257)}`,
          "/gifa/search?q=cat&locale=xx-XX",
          "/gifa/search?q=cat&limit=0",
          "/gifa/search?q=cat&limit=51",
          "/gifa/search?q=cat&limit=ten",
          "/gifa/trending-gifs?limit=2.5",
          "/gifa/featured?locale=english",
          "/gifa/suggest",
          "/gifa/suggest?q=cat&locale=EN"
        ]
      ) {
        expectError(yield* api.request("GET", path, { token }), 400, "INVALID_FORM_BODY")
      }
      for (const body of [{}, { id: "abc" }, { id: "1".repeat(21) }, { id: "123", locale: "xx" }, { id: "123", q: 5 }]) {
        expectError(yield* api.request("POST", "/gifa/register-share", { token, body }), 400, "INVALID_FORM_BODY")
      }
    }))

  it.effect("anonymous callers are 401 and bots 403", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const developer = yield* api.register()
      const { botToken } = yield* createApplication(developer.token)
      const routes = [
        ["GET", "/gifa/featured"],
        ["GET", "/gifa/search?q=cat"],
        ["GET", "/gifa/trending-gifs"],
        ["GET", "/gifa/suggest?q=cat"],
        ["POST", "/gifa/register-share"]
      ] as const
      for (const [method, path] of routes) {
        const body = method === "POST" ? { id: "123" } : undefined
        expectError(yield* api.request(method, path, { body }), 401, "UNAUTHORIZED")
        expectError(yield* api.request(method, path, { token: botToken, body }), 403, "ACCESS_DENIED")
      }
    }))

  it.effect("a failing, silent or unreadable provider is 503 with the error object, and the failure is not kept", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const fake = yield* FakeGifa
      const { token } = yield* api.register()
      const behaviours = [{ status: 500 }, { status: 429 }, "silent", "garbled", "misshapen"] as const
      for (const [i, behaviour] of behaviours.entries()) {
        yield* fake.behave(behaviour)
        const q = `outage ${i}`
        expectError(yield* api.request("GET", `/gifa/search?q=${encodeURIComponent(q)}`, { token }), 503, "SERVICE_UNAVAILABLE")
        expectError(yield* api.request("GET", `/gifa/trending-gifs?locale=ko&limit=${i + 1}`, { token }), 503, "SERVICE_UNAVAILABLE")
        expectError(yield* api.request("GET", `/gifa/featured?locale=vi`, { token }), 503, "SERVICE_UNAVAILABLE")
        expectError(yield* api.request("GET", `/gifa/suggest?q=${encodeURIComponent(q)}`, { token }), 503, "SERVICE_UNAVAILABLE")
        // Any JSON acknowledges a share: only a refusal, silence or a non-JSON answer fails it.
        const share = yield* api.request("POST", "/gifa/register-share", { token, body: { id: "42" } })
        if (behaviour === "misshapen") assert.strictEqual(share.status, 204)
        else expectError(share, 503, "SERVICE_UNAVAILABLE")
        yield* fake.behave("ok")
        const recovered = yield* api.request("GET", `/gifa/search?q=${encodeURIComponent(q)}`, { token })
        assert.strictEqual(recovered.status, 200, JSON.stringify(recovered.body))
        assert.deepStrictEqual(Gifs(recovered.body), [mapped(q, 0), mapped(q, 1), mapped(q, 2)])
      }
      assert.strictEqual((yield* api.request("GET", "/gifa/featured?locale=vi", { token })).status, 200)
    }))
})
