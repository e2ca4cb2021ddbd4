import { Context, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { type Answer, type Behaviour, fakeProviderServer, type Received } from "./FakeProvider.ts"

export const GIFB_KEY = "gifb-test-key"

const slugOf = (term: string, n: number) =>
  `${term.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${createHash("sha256").update(`${term}/${n}`).digest("base64url").slice(0, 5)}`

/** One size of a clip in every format the API serves it in. */
const formats = (base: string, width: number, height: number) =>
  Object.fromEntries(["gif", "webp", "jpg", "mp4", "webm"].map((format) => [format, {
    url: `${base}.${format}`,
    width,
    height,
    size: 100_000 + width * height
  }]))

/** A clip as the API writes one in a page of results. */
export const fakeClip = (term: string, n: number) => {
  const slug = slugOf(term, n)
  const base = `https://static.klipy.com/ii/4e7bea9f7a3371424e6c16ebc93252fe/${slug}`
  return {
    id: 3_390_000_000_000_000 + n,
    slug,
    title: `${term} ${n}`,
    file: {
      hd: formats(`${base}/hd`, 498, 280 + n),
      md: formats(`${base}/md`, 320, 180),
      sm: formats(`${base}/sm`, 220, 124),
      xs: formats(`${base}/xs`, 90, 50)
    },
    tags: [term],
    type: "gif",
    blur_preview: "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ"
  }
}

/** An ad the trending feed interleaves (it has no slug nor files). */
const ad = { type: "ad", content: "<div>ad</div>", width: 300, height: 250 }

/** A term with a refusal in the body (`result: false`) under a 200. */
export const REFUSED_TERM = "refused"

const page = (term: string, query: URLSearchParams, withAd: boolean) => {
  const perPage = Number(query.get("per_page") ?? "24")
  const clips = Array.from({ length: Math.min(perPage, 9) }, (_, n) => fakeClip(term, n))
  return {
    result: true,
    data: { data: withAd ? [clips[0], ad, ...clips.slice(1)] : clips, current_page: 1, per_page: perPage, has_next: true }
  }
}

const route = ({ method, path, query }: Received): Answer => {
  const prefix = `/api/v1/${GIFB_KEY}/`
  if (!path.startsWith(prefix)) return { status: 401, json: { result: false, message: "Unauthorized" } }
  const rest = path.slice(prefix.length)
  if (method === "GET" && rest === "gifs/search") {
    const q = query.get("q") ?? ""
    return q === REFUSED_TERM ? { status: 200, json: { result: false, message: "Invalid request" } } : { status: 200, json: page(q, query, false) }
  }
  if (method === "GET" && rest === "gifs/trending") return { status: 200, json: page("trending", query, true) }
  if (method === "GET" && rest === "gifs/categories") {
    return {
      status: 200,
      json: {
        result: true,
        data: {
          locale: query.get("locale") ?? "en_US",
          categories: [
            { category: "Happy", query: "happy", preview_url: "https://static.klipy.com/categories/happy.gif" },
            { category: "Thumbs Up", query: "thumbs up", preview_url: "https://static.klipy.com/categories/thumbs-up.gif" }
          ]
        }
      }
    }
  }
  if (method === "GET" && rest === "autocomplete") {
    const q = query.get("q") ?? ""
    return { status: 200, json: { result: true, data: [`${q}py`, `${q}py birthday`] } }
  }
  if (method === "POST" && /^gifs\/[A-Za-z0-9_-]+\/share$/.test(rest)) return { status: 200, json: { result: true, data: {} } }
  return { status: 404, json: { result: false, message: "Not found" } }
}

/** The second GIF provider's API (`/api/v1/<key>/...`) on a loopback port: GIFB_API_URL in tests. */
export class FakeGifb extends Context.Service<FakeGifb, {
  readonly url: string
  readonly behave: (behaviour: Behaviour) => Effect.Effect<void>
  readonly requests: (endpoint: string) => Effect.Effect<ReadonlyArray<Received>>
}>()("test/FakeGifb") {
  static readonly layer = Layer.effect(
    FakeGifb,
    Effect.map(fakeProviderServer(route), (server) => ({
      url: `${server.origin}/api/v1`,
      behave: server.behave,
      requests: server.requests
    }))
  )
}
