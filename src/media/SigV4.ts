import { createHash, createHmac } from "node:crypto"

/**
 * AWS Signature Version 4 for requests to an S3-compatible store, by hand on
 * node:crypto (S3Store.ts says why there is no SDK). It signs the host, the
 * caller's headers, `x-amz-date` and `x-amz-content-sha256`; the URL carries
 * no query string (this store never sends one).
 */
export interface SigningCredentials {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly region: string
}

export interface UnsignedRequest {
  readonly method: string
  readonly url: URL
  /** Headers to sign and send besides the host, lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  /** Hex SHA-256 of the body (of nothing, for a request without one). */
  readonly payloadHash: string
}

const SERVICE = "s3"
const ALGORITHM = "AWS4-HMAC-SHA256"

export const sha256Hex = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex")

const hmac = (key: Uint8Array | string, data: string) => createHmac("sha256", key).update(data).digest()

/** `20130524T000000Z`: ISO 8601 basic format, UTC, no fraction. */
const amzDate = (now: Date) => now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "")

/** The headers to send: the caller's plus the date, payload hash and Authorization. */
export const signV4 = (request: UnsignedRequest, credentials: SigningCredentials, now: Date): Record<string, string> => {
  const date = amzDate(now)
  const day = date.slice(0, 8)
  const headers: Record<string, string> = { ...request.headers, "x-amz-content-sha256": request.payloadHash, "x-amz-date": date }
  const signed = Object.entries({ ...headers, host: request.url.host })
    .map(([name, value]) => [name.toLowerCase(), value.trim().replace(/\s+/g, " ")] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const signedHeaders = signed.map(([name]) => name).join(";")
  const canonicalRequest = [
    request.method,
    request.url.pathname,
    "",
    ...signed.map(([name, value]) => `${name}:${value}`),
    "",
    signedHeaders,
    request.payloadHash
  ].join("\n")
  const scope = `${day}/${credentials.region}/${SERVICE}/aws4_request`
  const stringToSign = [ALGORITHM, date, scope, sha256Hex(canonicalRequest)].join("\n")
  const key = [day, credentials.region, SERVICE, "aws4_request"].reduce<Uint8Array | string>(
    (previous, part) => hmac(previous, part),
    `AWS4${credentials.secretAccessKey}`
  )
  const signature = createHmac("sha256", key).update(stringToSign).digest("hex")
  return {
    ...headers,
    authorization: `${ALGORITHM} Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`
  }
}
