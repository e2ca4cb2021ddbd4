import { Context, Duration, Effect, Layer, Schema } from "effect"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import * as Http from "node:http"
import * as Https from "node:https"
import type { LookupFunction } from "node:net"
import { AppConfig, type MediaFetchSettings } from "../platform/Config.ts"
import { type Network, networkSet, parseAddress, parseNetwork } from "../platform/IpAddress.ts"
import { type SniffedMedia, sniffMedia } from "./Sniff.ts"

/** Hops after the first; each one's address is checked again. */
export const MAX_REDIRECTS = 5

/** Bytes enough to tell any known media kind (Sniff.ts) from the rest. */
const SNIFF_BYTES = 64

/**
 * Addresses no user may point the server at: its own host, private and
 * carrier-grade NAT networks, link-local (cloud metadata services), unique-local,
 * multicast, unspecified, reserved and documentation ranges. An IPv4-mapped
 * IPv6 address counts as the IPv4 address it maps (IpAddress.ts).
 */
const INTERNAL = networkSet([
  "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
  "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
  "::/96", "64:ff9b::/96", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8"
].flatMap((range) => parseNetwork(range) ?? []))

const MEDIA_TYPES = "image/*, video/mp4, video/webm"

export const RemoteFetchReason = Schema.Literals([
  "invalid_url",
  "forbidden_address",
  "too_large",
  "unsupported_type",
  "unreachable",
  "timeout",
  "too_many_redirects",
  "bad_status"
])
export type RemoteFetchReason = typeof RemoteFetchReason.Type

/** Why a URL's content could not be had; `message` is fit to show the user. */
export class RemoteFetchError extends Schema.TaggedError<RemoteFetchError>()("RemoteFetchError", {
  reason: RemoteFetchReason,
  message: Schema.String
}) {}

export interface Fetched {
  readonly bytes: Uint8Array
  /** The URL the bytes came from, after redirects. */
  readonly url: string
}

export interface FetchOptions {
  /**
   * Sees the first bytes as soon as they arrive (or the whole body, when
   * shorter): false ends the fetch as `unsupported_type` without reading the rest.
   */
  readonly accepts?: (head: Uint8Array) => boolean
  /** The request's Accept header; media types by default. */
  readonly accept?: string
}

export interface FetchedMedia extends Fetched {
  readonly media: SniffedMedia
}

/** Raised inside a request for an address the policy refuses; turned into a RemoteFetchError. */
class RefusedAddress extends Error {}
class Refused extends Error {
  readonly reason: RemoteFetchReason
  constructor(reason: RemoteFetchReason, message: string) {
    super(message)
    this.reason = reason
  }
}

/** Whether the server may connect to `address` under `settings`. */
export const addressPolicy = (settings: Pick<MediaFetchSettings, "allowPrivate" | "allowedNetworks">) => {
  const allowed = networkSet(settings.allowedNetworks)
  return (address: Network): boolean => settings.allowPrivate || allowed.holds(address) || !INTERNAL.holds(address)
}

/**
 * A DNS lookup that answers only addresses the policy permits: every address
 * a name resolves to is checked, and the connection is made to a checked one
 * (node connects to what the lookup answers), so a name cannot answer a
 * public address to the check and a private one to the connection.
 */
const guardedLookup = (permits: (address: Network) => boolean): LookupFunction => (hostname, options, callback) => {
  dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses: ReadonlyArray<LookupAddress>) => {
    if (error !== null) return callback(error, "", 0)
    const refused = addresses.find((a) => {
      const parsed = parseAddress(a.address)
      return parsed === undefined || !permits(parsed)
    })
    const first = addresses[0]
    if (refused !== undefined || first === undefined) {
      return callback(new RefusedAddress(`${hostname} resolves to an address this server does not fetch from`), "", 0)
    }
    if (options.all === true) return callback(null, [...addresses])
    callback(null, first.address, first.family)
  })
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/**
 * Fetches URLs users name, for features that keep what they point at (saved
 * media): http and https only, internal addresses refused after resolution
 * (MEDIA_FETCH_ALLOW_PRIVATE, MEDIA_FETCH_ALLOWED_NETWORKS), a bounded number
 * of redirects each checked again, a size limit enforced as the body arrives
 * (MEDIA_FETCH_MAX_BYTES) and one deadline for the whole (MEDIA_FETCH_TIMEOUT_MS).
 */
export class RemoteFetch extends Context.Service<RemoteFetch, {
  /** The body of `url` (FetchOptions: what it must start with, what to ask for). */
  readonly fetch: (url: string, options?: FetchOptions) => Effect.Effect<Fetched, RemoteFetchError>
  /** An image or an MP4 or WebM video (Sniff.ts), typed by its bytes whatever the server says it is. */
  readonly fetchMedia: (url: string) => Effect.Effect<FetchedMedia, RemoteFetchError>
}>()("guildhall/RemoteFetch") {
  static readonly make = (settings: MediaFetchSettings) => {
    const permits = addressPolicy(settings)
    const lookup = guardedLookup(permits)

    /** One request; a literal address is checked here, since node looks up only names. */
    const request = (url: URL, signal: AbortSignal, accept: string) =>
      new Promise<Http.IncomingMessage>((resolve, reject) => {
        const literal = parseAddress(url.hostname)
        if (literal !== undefined && !permits(literal)) {
          return reject(new RefusedAddress(`${url.hostname} is an address this server does not fetch from`))
        }
        const client = url.protocol === "https:" ? Https : Http
        const outgoing = client.request(url, {
          method: "GET",
          signal,
          lookup,
          headers: { "user-agent": "Guildhall media fetcher", accept }
        }, resolve)
        outgoing.on("error", reject)
        outgoing.end()
      })

    const body = async (response: Http.IncomingMessage, accepts: ((head: Uint8Array) => boolean) | undefined) => {
      const declared = Number(response.headers["content-length"])
      if (Number.isFinite(declared) && declared > settings.maxBytes) {
        response.destroy()
        throw new Refused("too_large", `The file is larger than ${settings.maxBytes} bytes`)
      }
      const chunks: Array<Buffer> = []
      let size = 0
      let checked = accepts === undefined
      const check = () => {
        checked = true
        if (accepts !== undefined && !accepts(Buffer.concat(chunks))) {
          response.destroy()
          throw new Refused("unsupported_type", "Not an image, nor an MP4 or WebM video")
        }
      }
      for await (const chunk of response) {
        const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
        size += buffer.length
        if (size > settings.maxBytes) {
          response.destroy()
          throw new Refused("too_large", `The file is larger than ${settings.maxBytes} bytes`)
        }
        chunks.push(buffer)
        if (!checked && size >= SNIFF_BYTES) check()
      }
      if (!checked) check()
      return new Uint8Array(Buffer.concat(chunks))
    }

    const run = async (start: string, signal: AbortSignal, options: FetchOptions): Promise<Fetched> => {
      let url = parseWebUrl(start)
      for (let hop = 0; ; hop++) {
        const response = await request(url, signal, options.accept ?? MEDIA_TYPES)
        const status = response.statusCode ?? 0
        const location = response.headers.location
        if (REDIRECTS.has(status) && location !== undefined) {
          response.resume()
          if (hop >= MAX_REDIRECTS) throw new Refused("too_many_redirects", `More than ${MAX_REDIRECTS} redirects`)
          url = parseWebUrl(location, url)
          continue
        }
        if (status < 200 || status > 299) {
          response.resume()
          throw new Refused("bad_status", `The server answered ${status}`)
        }
        return { bytes: await body(response, options.accepts), url: url.toString() }
      }
    }

    const fetch = (url: string, options: FetchOptions = {}) =>
      Effect.tryPromise({ try: (signal) => run(url, signal, options), catch: failureOf }).pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(settings.timeoutMillis),
          orElse: () => Effect.fail(new RemoteFetchError({ reason: "timeout", message: "The server took too long to answer" }))
        }),
        Effect.withSpan("RemoteFetch.fetch")
      )

    const fetchMedia = (url: string) =>
      Effect.flatMap(fetch(url, { accepts: (head) => sniffMedia(head) !== undefined }), (fetched) => {
        const media = sniffMedia(fetched.bytes)
        return media === undefined
          ? Effect.fail(new RemoteFetchError({ reason: "unsupported_type", message: "Not an image, nor an MP4 or WebM video" }))
          : Effect.succeed({ ...fetched, media })
      })

    return RemoteFetch.of({ fetch, fetchMedia })
  }

  static readonly layer = Layer.effect(RemoteFetch, Effect.map(AppConfig, ({ mediaFetch }) => RemoteFetch.make(mediaFetch)))
}

/** `text` as an http(s) URL, relative to `base` for a redirect's Location. */
const parseWebUrl = (text: string, base?: URL): URL => {
  let url: URL
  try {
    url = new URL(text, base)
  } catch {
    throw new Refused("invalid_url", "Not a URL")
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Refused("invalid_url", "Only http and https URLs are fetched")
  if (url.username !== "" || url.password !== "") throw new Refused("invalid_url", "URLs with credentials are not fetched")
  return url
}

const failureOf = (error: unknown): RemoteFetchError => {
  if (error instanceof Refused) return new RemoteFetchError({ reason: error.reason, message: error.message })
  if (error instanceof RefusedAddress) return new RemoteFetchError({ reason: "forbidden_address", message: error.message })
  return new RemoteFetchError({ reason: "unreachable", message: "The server could not be reached" })
}
