import { isIP } from "node:net"

/** The longest endpoint kept; the push services in use hand out a few hundred characters. */
export const MAX_ENDPOINT_LENGTH = 2048

/**
 * Key bytes from base64url, which `PushSubscription.toJSON()` writes, or from
 * plain base64 with padding, which some clients produce by hand; undefined
 * when the text is neither.
 */
export const decodeKey = (text: string): Buffer | undefined =>
  /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text.replace(/=+$/, ""), "base64url") : undefined

/** Keys are stored the one way the sender will read them. */
export const normalizeKey = (text: string): string => decodeKey(text)?.toString("base64url") ?? text

/** RFC 8291: the browser's ECDH public key, an uncompressed P-256 point. */
export const isP256dh = (key: Buffer): boolean => key.length === 65 && key[0] === 0x04
/** RFC 8291: the authentication secret. */
export const isAuthSecret = (key: Buffer): boolean => key.length === 16

/**
 * Why an endpoint cannot be one, or undefined. The server will POST to it, so
 * besides https it must name a public host: no IP literal, no single-label or
 * local name. (Whoever sends must still check the addresses the name resolves to.)
 */
export const endpointProblem = (text: string): string | undefined => {
  const url = URL.parse(text)
  if (url === null) return "Not a URL"
  if (url.protocol !== "https:") return "A push endpoint must use https"
  if (url.username !== "" || url.password !== "") return "A push endpoint carries no credentials"
  const host = url.hostname.toLowerCase()
  const local = ["localhost", ".localhost", ".local", ".internal"].some((suffix) => host === suffix || host.endsWith(suffix))
  if (isIP(host.replace(/^\[(.*)\]$/, "$1")) !== 0 || !host.includes(".") || local) {
    return "A push endpoint names a push service's public host"
  }
  return undefined
}
