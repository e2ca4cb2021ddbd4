import { assert, expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { FeaturedResponse, GifResponse } from "../../src/gifs/Schemas.ts"
import { expectError, TestApi } from "../support/Api.ts"
import { FakeGifb, fakeClip, GIFB_KEY, REFUSED_TERM } from "./FakeGifb.ts"

const Gifs = Schema.decodeUnknownSync(Schema.Array(GifResponse))
const Featured = Schema.decodeUnknownSync(FeaturedResponse)
const Terms = Schema.decodeUnknownSync(Schema.Array(Schema.String))
const Share = Schema.decodeUnknownSync(Schema.Struct({ customer_id: Schema.String, q: Schema.String }))

/** The API with the second provider at a fake on a local port; a silent provider is given up on after 1 s. */
const api = Layer.unwrap(Effect.map(FakeGifb, (fake) =>
  TestApi.layerWith({ GIFB_API_URL: fake.url, GIFB_API_KEY: GIFB_KEY, GIF_PROVIDER_TIMEOUT_MS: "1000" }))).pipe(
  Layer.provideMerge(FakeGifb.layer)
)

/** What a fake clip becomes on our wire: its slug is the id, its HD video the media. */
const mapped = (term: string, n: number) => {
  const clip = fakeClip(term, n)
  const media = clip.file.hd["mp4"]
  if (media === undefined) throw new Error("the fake clip has no HD video")
  return {
    id: clip.slug,
    title: clip.title,
    url: `https://klipy.com/gifs/${clip.slug}`,
    src: media.url,
    proxy_src: media.url,
    width: media.width,
    height: media.height
  }
}
const first = (term: string, count: number) => Array.from({ length: count }, (_, n) => mapped(term, n))

layer(api, { timeout: 120_000, excludeTestServices: true })("GIF provider gifb", (it) => {
  it.effect("search maps clips by slug, asks with the key in the path, and pages of fewer than 8 are cut from 8", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const fake = yield* FakeGifb
      const { token } = yield* api.register()
      const reply = yield* api.request("GET", "/gifb/search?q=dance", { token })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assert.deepStrictEqual(reply.body, first("dance", 9))
      const [sent] = yield* fake.requests(`/${GIFB_KEY}/gifs/search`)
      expect(Object.fromEntries(sent?.query ?? [])).toMatchObject({ q: "dance", locale: "en_US", per_page: "50", page: "1", rating: "pg-13" })

      const few = yield* api.request("GET", "/gifb/search?q=wave&limit=3&locale=sv-SE", { token })
      assert.deepStrictEqual(Gifs(few.body), first("wave", 3))
      const wave = (yield* fake.requests("/gifs/search")).find((r) => r.query.get("q") === "wave")
      expect(Object.fromEntries(wave?.query ?? [])).toMatchObject({ per_page: "8", locale: "sv_SE" })
    }))

  it.effect("identical searches within the minute are one upstream call", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const fake = yield* FakeGifb
      const { token } = yield* api.register()
      const replies = yield* Effect.all(
        Array.from({ length: 4 }, () => api.request("GET", "/gifb/search?q=burst", { token })),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(replies.map((r) => r.status), [200, 200, 200, 200])
      yield* api.request("GET", "/gifb/search?q=burst", { token })
      assert.strictEqual((yield* fake.requests("/gifs/search")).filter((r) => r.query.get("q") === "burst").length, 1)
    }))

  it.effect("trending-gifs leaves out the ads the feed interleaves", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const reply = yield* api.request("GET", "/gifb/trending-gifs?limit=4", { token })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assert.deepStrictEqual(Gifs(reply.body), first("trending", 4))
    }))

  it.effect("featured is one trending clip and the categories, each previewed by its first clip", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const reply = yield* api.request("GET", "/gifb/featured", { token })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assert.deepStrictEqual(Featured(reply.body), {
        gifs: [mapped("trending", 0)],
        categories: ["happy", "thumbs up"].map((term) => ({ name: term, src: mapped(term, 0).src, proxy_src: mapped(term, 0).src }))
      })
    }))

  it.effect("suggest answers the provider's completions", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const reply = yield* api.request("GET", "/gifb/suggest?q=hap&locale=fr", { token })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assert.deepStrictEqual(Terms(reply.body), ["happy", "happy birthday"])
    }))

  it.effect("register-share posts the slug with a pseudonym of the user, every time", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const fake = yield* FakeGifb
      const { token, userId } = yield* api.register()
      const slug = mapped("share", 2).id
      for (let i = 0; i < 2; i++) {
        const reply = yield* api.request("POST", "/gifb/register-share", { token, body: { id: slug, q: "share" } })
        assert.strictEqual(reply.status, 204, JSON.stringify(reply.body))
      }
      const shares = yield* fake.requests(`/gifs/${slug}/share`)
      assert.deepStrictEqual(shares.map((r) => r.method), ["POST", "POST"])
      const sent = Share(shares[0]?.body)
      assert.strictEqual(sent.q, "share")
      assert.notInclude(sent.customer_id, userId)
      assert.strictEqual(Share(shares[1]?.body).customer_id, sent.customer_id)
    }))

  it.effect("bad queries and bodies are 400; anonymous callers 401", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      for (const path of ["/gifb/search", "/gifb/search?q=a&limit=100", "/gifb/trending-gifs?locale=zz", "/gifb/suggest?q="]) {
        expectError(yield* api.request("GET", path, { token }), 400, "INVALID_FORM_BODY")
      }
      for (const body of [{}, { id: "../../admin" }, { id: "a b" }, { id: "x".repeat(129) }]) {
        expectError(yield* api.request("POST", "/gifb/register-share", { token, body }), 400, "INVALID_FORM_BODY")
      }
      for (const path of ["/gifb/featured", "/gifb/search?q=a", "/gifb/trending-gifs", "/gifb/suggest?q=a"]) {
        expectError(yield* api.request("GET", path), 401, "UNAUTHORIZED")
      }
      expectError(yield* api.request("POST", "/gifb/register-share", { body: { id: "abc" } }), 401, "UNAUTHORIZED")
    }))

  it.effect("a refusing, failing or silent provider is 503 with the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const fake = yield* FakeGifb
      const { token } = yield* api.register()
      expectError(yield* api.request("GET", `/gifb/search?q=${REFUSED_TERM}`, { token }), 503, "SERVICE_UNAVAILABLE")
      for (const [i, behaviour] of ([{ status: 502 }, "silent", "garbled", "misshapen"] as const).entries()) {
        yield* fake.behave(behaviour)
        expectError(yield* api.request("GET", `/gifb/search?q=down${i}`, { token }), 503, "SERVICE_UNAVAILABLE")
        expectError(yield* api.request("GET", "/gifb/featured?locale=it", { token }), 503, "SERVICE_UNAVAILABLE")
        expectError(yield* api.request("POST", "/gifb/register-share", { token, body: { id: "abc" } }), 503, "SERVICE_UNAVAILABLE")
        yield* fake.behave("ok")
        assert.deepStrictEqual(Gifs((yield* api.request("GET", `/gifb/search?q=down${i}&limit=2`, { token })).body), first(`down${i}`, 2))
      }
    }))
})
