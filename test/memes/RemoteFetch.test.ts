import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { addressPolicy, RemoteFetch } from "../../src/media/RemoteFetch.ts"
import { type MediaFetchSettings } from "../../src/platform/Config.ts"
import { parseAddress, parseNetwork } from "../../src/platform/IpAddress.ts"
import { MediaServer, memePng, mp4, webm } from "./MediaServer.ts"

const settings = (overrides: Partial<MediaFetchSettings> = {}): MediaFetchSettings => ({
  allowPrivate: false,
  allowedNetworks: [],
  maxBytes: 1024 * 1024,
  timeoutMillis: 10_000,
  ...overrides
})

const loopbackOnly = settings({ allowedNetworks: [parseNetwork("127.0.0.1/32")].flatMap((n) => (n === undefined ? [] : [n])) })

/** The reason a fetch failed, or "ok". */
const outcome = (fetcher: RemoteFetch["Service"], url: string) =>
  Effect.match(fetcher.fetchMedia(url), { onFailure: (e) => e.reason, onSuccess: () => "ok" })

layer(MediaServer.layer, { timeout: 60_000, excludeTestServices: true })("fetching media from URLs", (it) => {
  it("refuses internal addresses unless allowed, and allows the public internet", () => {
    const refuses = addressPolicy(settings())
    const internal = [
      "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
      "224.0.0.251", "255.255.255.255", "::", "::1", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1",
      "::ffff:10.0.0.1"
    ]
    for (const address of internal) {
      const parsed = parseAddress(address)
      assert.isDefined(parsed, address)
      if (parsed !== undefined) assert.isFalse(refuses(parsed), address)
    }
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      const parsed = parseAddress(address)
      if (parsed !== undefined) assert.isTrue(refuses(parsed), address)
    }
    const allowAll = addressPolicy(settings({ allowPrivate: true }))
    const loopback = parseAddress("127.0.0.1")
    if (loopback !== undefined) assert.isTrue(allowAll(loopback))
  })

  it.effect("with MEDIA_FETCH_ALLOW_PRIVATE off, loopback is refused before any connection, by address or by name", () =>
    Effect.gen(function*() {
      const server = yield* MediaServer
      const fetcher = RemoteFetch.make(settings())
      const port = new URL(server.url).port
      assert.strictEqual(yield* outcome(fetcher, `${server.url}/meme.png`), "forbidden_address")
      assert.strictEqual(yield* outcome(fetcher, `http://localhost:${port}/meme.png`), "forbidden_address")
      assert.strictEqual(yield* outcome(fetcher, `http://[::1]:${port}/meme.png`), "forbidden_address")
      assert.strictEqual(yield* outcome(fetcher, `http://[::ffff:127.0.0.1]:${port}/meme.png`), "forbidden_address")
      assert.strictEqual(server.hits("127.0.0.1/meme.png"), 0)
    }))

  it.effect("with MEDIA_FETCH_ALLOW_PRIVATE on, a local server's image and videos are fetched and typed by their bytes", () =>
    Effect.gen(function*() {
      const server = yield* MediaServer
      const fetcher = RemoteFetch.make(settings({ allowPrivate: true }))
      const image = yield* fetcher.fetchMedia(`${server.url}/meme.png`)
      assert.deepStrictEqual(Buffer.from(image.bytes), memePng)
      expect(image.media).toEqual({ contentType: "image/png", extension: "png", width: 16, height: 8 })
      // The server's Content-Type is not what decides: a PNG served as text is a PNG.
      expect((yield* fetcher.fetchMedia(`${server.url}/served-as-text.png`)).media.contentType).toBe("image/png")
      const video = yield* fetcher.fetchMedia(`${server.url}/clip.mp4`)
      assert.deepStrictEqual(Buffer.from(video.bytes), mp4)
      expect(video.media).toEqual({ contentType: "video/mp4", extension: "mp4", width: null, height: null })
      expect((yield* fetcher.fetchMedia(`${server.url}/clip.webm`)).media.contentType).toBe("video/webm")
      assert.deepStrictEqual(Buffer.from((yield* fetcher.fetchMedia(`${server.url}/clip.webm`)).bytes), webm)
    }))

  it.effect("a redirect's target is checked again: one to an address not allowed is refused without being asked", () =>
    Effect.gen(function*() {
      const server = yield* MediaServer
      const fetcher = RemoteFetch.make(loopbackOnly)
      assert.strictEqual(yield* outcome(fetcher, `${server.url}/meme.png`), "ok")
      const hop = `${server.url}/redirect?to=${encodeURIComponent(`${server.otherUrl}/meme.png`)}`
      assert.strictEqual(yield* outcome(fetcher, hop), "forbidden_address")
      assert.strictEqual(server.hits("127.0.0.2/meme.png"), 0)
      // A redirect within what is allowed is followed.
      const local = `${server.url}/redirect?to=${encodeURIComponent("/meme.png")}`
      assert.strictEqual(yield* outcome(fetcher, local), "ok")
      assert.strictEqual(yield* outcome(fetcher, `${server.url}/loop`), "too_many_redirects")
      // Nor may a redirect leave http(s).
      assert.strictEqual(yield* outcome(fetcher, `${server.url}/redirect?to=${encodeURIComponent("file:///etc/passwd")}`), "invalid_url")
    }))

  it.effect("an oversized body is cut off as it arrives; declared too large, it is not read at all", () =>
    Effect.gen(function*() {
      const server = yield* MediaServer
      const fetcher = RemoteFetch.make(settings({ allowPrivate: true }))
      assert.strictEqual(yield* outcome(fetcher, `${server.url}/huge.png`), "too_large")
      // The server learns the client went away before it had sent the whole file.
      yield* Effect.promise(() =>
        new Promise<void>((resolve) => {
          const poll = () => (server.oversizedEndings.length > 0 ? resolve() : setImmediate(poll))
          poll()
        }))
      assert.deepStrictEqual(server.oversizedEndings, ["cut"])
      assert.strictEqual(yield* outcome(fetcher, `${server.url}/declared-huge.png`), "too_large")
    }))

  it.effect("refuses what is not media, other schemes, bad URLs and missing files", () =>
    Effect.gen(function*() {
      const server = yield* MediaServer
      const fetcher = RemoteFetch.make(settings({ allowPrivate: true }))
      assert.strictEqual(yield* outcome(fetcher, `${server.url}/notes.txt`), "unsupported_type")
      assert.strictEqual(yield* outcome(fetcher, `${server.url}/text-claiming-png.png`), "unsupported_type")
      assert.strictEqual(yield* outcome(fetcher, `${server.url}/nothing-here.png`), "bad_status")
      assert.strictEqual(yield* outcome(fetcher, "ftp://127.0.0.1/meme.png"), "invalid_url")
      assert.strictEqual(yield* outcome(fetcher, "not a url"), "invalid_url")
      assert.strictEqual(yield* outcome(fetcher, `http://user:secret@127.0.0.1:${new URL(server.url).port}/meme.png`), "invalid_url")
    }))
})
