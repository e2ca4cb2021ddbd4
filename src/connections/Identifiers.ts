import { Effect } from "effect"
import { isIP } from "node:net"
import { domainToASCII } from "node:url"
import type { ConnectionType } from "../model/Connections.ts"
import { BadRequest } from "../model/Errors.ts"

export const invalidIdentifier = (type: ConnectionType) =>
  new BadRequest({
    code: "CONNECTION_INVALID_IDENTIFIER",
    message: type === "domain"
      ? "Not a domain name (a host name such as example.com, not an IP address)"
      : "Not a handle (a host name such as alice.example.social)"
  })

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/**
 * A public host name in its ASCII (punycode) lower-case form, or undefined:
 * at least two labels of letters, digits and inner hyphens, at most 253
 * characters, and a top-level label that is not all digits, so no IP address
 * and no single-label name (`localhost`) passes.
 */
export const hostName = (text: string): string | undefined => {
  const trimmed = text.trim().replace(/\.$/, "")
  if (trimmed === "" || isIP(trimmed) !== 0 || /[\s/:@?#[\]\\%]/.test(trimmed)) return undefined
  const ascii = domainToASCII(trimmed).toLowerCase()
  if (ascii === "" || ascii.length > 253) return undefined
  const labels = ascii.split(".")
  const top = labels.at(-1) ?? ""
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label)) || /^[0-9]+$/.test(top)) return undefined
  return ascii
}

/**
 * The identifier as a connection keeps it: a domain, or a handle (a host name
 * too, as federated handles are; a leading `@` is dropped). 400
 * CONNECTION_INVALID_IDENTIFIER for anything else.
 */
export const normalizeIdentifier = (type: ConnectionType, identifier: string): Effect.Effect<string, BadRequest> => {
  const name = hostName(type === "social" ? identifier.trim().replace(/^@/, "") : identifier)
  return name === undefined ? Effect.fail(invalidIdentifier(type)) : Effect.succeed(name)
}
