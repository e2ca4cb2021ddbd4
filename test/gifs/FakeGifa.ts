import { Context, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { type Answer, type Behaviour, fakeProviderServer, type Received } from "./FakeProvider.ts"

export const GIFA_KEY = "gifa-test-key"

/** A result id as the provider writes them: 20 decimal digits, derived from the term. */
const idOf = (term: string, n: number) =>
  String(10n ** 19n + BigInt(`0x${createHash("sha256").update(term).digest("hex").slice(0, 14)}`) * 100n + BigInt(n))

const slugOf = (term: string) => term.toLowerCase().replace(/[^a-z0-9]+/g, "-")

/**
 * A result as version 2 of the API writes one with `media_filter=webm`. The
 * first of each list has an empty title (common upstream): its description stands in.
 */
export const fakeResult = (term: string, n: number) => {
  const id = idOf(term, n)
  const dims: [number, number] = [498, 280 + n]
  const code = createHash("md5").update(`${term}/${n}`).digest("base64url").slice(0, 16)
  return {
    id,
    title: n === 0 ? "" : `${term} ${n}`,
    media_formats: {
      webm: { url: `https://media.tenor.com/${code}/${slugOf(term)}.webm`, duration: 2.4, preview: "", dims, size: 183_221 }
    },
    created: 1_699_999_999.512,
    content_description: `${term} GIF ${n}`,
    itemurl: `https://tenor.com/view/${slugOf(term)}-gif-${id}`,
    url: `https://tenor.com/b${code}.gif`,
    tags: [term],
    flags: [],
    hasaudio: false,
    content_description_source: "GENERATED_BY_AI"
  }
}

/** Terms with special answers: no results at all, and results lacking the video format. */
export const EMPTY_TERM = "nothing-found"
export const STILLS_TERM = "stills only"

const results = (term: string, query: URLSearchParams) => {
  if (term === EMPTY_TERM) return []
  const count = Math.min(Number(query.get("limit") ?? "20"), 3)
  const list = Array.from({ length: count }, (_, n) => fakeResult(term, n))
  return term === STILLS_TERM
    ? list.map(({ media_formats, ...rest }) => ({ ...rest, media_formats: { gif: { ...media_formats.webm, url: "https://media.tenor.com/x/a.gif" } } }))
    : list
}

export const FEATURED_CATEGORIES = ["agree", "applause", EMPTY_TERM]

const route = ({ path, query }: Received): Answer => {
  if (query.get("key") !== GIFA_KEY) {
    return { status: 400, json: { error: { code: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT" } } }
  }
  switch (path) {
    case "/v2/search":
      return { status: 200, json: { results: results(query.get("q") ?? "", query), next: "CAgQ3e3l7Z2v8gIaHgoKAD-f1a9j" } }
    case "/v2/featured":
      return { status: 200, json: { results: results("trending", query), next: "CAgQzK7v7Z2v8gIaHgoKAD" } }
    case "/v2/categories":
      return {
        status: 200,
        json: {
          locale: query.get("locale") ?? "en",
          tags: FEATURED_CATEGORIES.map((term) => ({
            searchterm: term,
            path: `/v2/search?q=${encodeURIComponent(term)}&locale=en&component=categories&contentfilter=low`,
            image: `https://media.tenor.com/cat/${slugOf(term)}.gif`,
            name: `#${term}`
          }))
        }
      }
    case "/v2/autocomplete": {
      const q = query.get("q") ?? ""
      return { status: 200, json: { locale: "en", results: [q, `${q} meme`, `${q} funny`] } }
    }
    case "/v2/registershare":
      return { status: 200, json: {} }
    default:
      return { status: 404, json: { error: { code: 404, message: "Not found", status: "NOT_FOUND" } } }
  }
}

/** The first GIF provider's API (version 2, under `/v2`) on a loopback port: GIFA_API_URL in tests. */
export class FakeGifa extends Context.Service<FakeGifa, {
  readonly url: string
  readonly behave: (behaviour: Behaviour) => Effect.Effect<void>
  readonly requests: (endpoint: string) => Effect.Effect<ReadonlyArray<Received>>
}>()("test/FakeGifa") {
  static readonly layer = Layer.effect(
    FakeGifa,
    Effect.map(fakeProviderServer(route), (server) => ({
      url: `${server.origin}/v2`,
      behave: server.behave,
      requests: (endpoint: string) => server.requests(`/v2/${endpoint}`)
    }))
  )
}
