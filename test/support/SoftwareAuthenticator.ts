import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto"

/*
 * A WebAuthn authenticator in software, for tests: a P-256 key pair (ES256),
 * attestation "none", and assertions signed over authenticatorData ||
 * SHA-256(clientDataJSON), as a browser with a security key would produce them.
 */

type Cbor = number | string | Uint8Array | ReadonlyArray<Cbor> | Map<Cbor, Cbor>

/** The CBOR head of a major type with its argument (RFC 8949 §3). */
const head = (major: number, value: number): Buffer => {
  if (value < 24) return Buffer.from([(major << 5) | value])
  if (value < 0x100) return Buffer.from([(major << 5) | 24, value])
  if (value < 0x10000) {
    const b = Buffer.alloc(3)
    b[0] = (major << 5) | 25
    b.writeUInt16BE(value, 1)
    return b
  }
  const b = Buffer.alloc(5)
  b[0] = (major << 5) | 26
  b.writeUInt32BE(value, 1)
  return b
}

/** Minimal CBOR: integers, byte and text strings, arrays and maps (what attestation objects and COSE keys need). */
export const cbor = (value: Cbor): Buffer => {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value)
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8")
    return Buffer.concat([head(3, bytes.length), bytes])
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value])
  if (value instanceof Map) {
    return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])])
  }
  return Buffer.concat([head(4, value.length), ...value.map(cbor)])
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest()
const b64 = (data: Buffer | Uint8Array) => Buffer.from(data).toString("base64url")

const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_AT = 0x40

/** The `challenge` (and `user.id` of creation options) of an options object a server answered. */
const optionString = (options: unknown, ...path: Array<string>): string | undefined => {
  let value: unknown = options
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined
    value = Object.entries(value).find(([name]) => name === key)?.[1]
  }
  return typeof value === "string" ? value : undefined
}

interface Key {
  readonly credentialId: Buffer
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
}

const newKey = (): Key => ({ credentialId: randomBytes(32), ...generateKeyPairSync("ec", { namedCurve: "P-256" }) })

export class SoftwareAuthenticator {
  /** The user handle given at registration; sent back in assertions (discoverable credential). */
  userHandle: string | undefined
  counter = 0

  readonly origin: string
  readonly rpId: string
  private readonly key: Key

  constructor(origin = "http://localhost:8080", rpId = "localhost", key: Key = newKey()) {
    this.origin = origin
    this.rpId = rpId
    this.key = key
  }

  get credentialId(): Buffer {
    return this.key.credentialId
  }
  private get privateKey(): KeyObject {
    return this.key.privateKey
  }
  private get publicKey(): KeyObject {
    return this.key.publicKey
  }

  get id(): string {
    return b64(this.credentialId)
  }

  /** The same key and counter state: a clone, as an attacker who copied the key would hold. */
  clone(): SoftwareAuthenticator {
    const copy = new SoftwareAuthenticator(this.origin, this.rpId, this.key)
    copy.userHandle = this.userHandle
    copy.counter = this.counter
    return copy
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), "utf8")
  }

  private coseKey(): Buffer {
    const jwk = this.publicKey.export({ format: "jwk" })
    const x = Buffer.from(jwk.x ?? "", "base64url")
    const y = Buffer.from(jwk.y ?? "", "base64url")
    return cbor(new Map<Cbor, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, x], [-3, y]]))
  }

  private authData(flags: number, extra: Buffer = Buffer.alloc(0)): Buffer {
    const counter = Buffer.alloc(4)
    counter.writeUInt32BE(this.counter)
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), counter, extra])
  }

  /** RegistrationResponseJSON for creation options (`navigator.credentials.create`). */
  register(options: unknown, { origin = this.origin }: { origin?: string } = {}) {
    const challenge = optionString(options, "challenge")
    if (challenge === undefined) throw new Error(`no challenge in ${JSON.stringify(options)}`)
    this.userHandle = optionString(options, "user", "id")
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(this.credentialId.length)
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.coseKey()])
    const authData = this.authData(FLAG_UP | FLAG_UV | FLAG_AT, attested)
    const attestationObject = cbor(new Map<Cbor, Cbor>([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]]))
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: b64(this.clientData("webauthn.create", challenge, origin)),
        attestationObject: b64(attestationObject),
        transports: ["internal"]
      },
      authenticatorAttachment: "platform",
      clientExtensionResults: {}
    }
  }

  /** AuthenticationResponseJSON for request options (`navigator.credentials.get`); each use raises the counter. */
  authenticate(
    options: unknown,
    { origin = this.origin, userVerified = true, challenge }: { origin?: string; userVerified?: boolean; challenge?: string } = {}
  ) {
    const signed = challenge ?? optionString(options, "challenge")
    if (signed === undefined) throw new Error(`no challenge in ${JSON.stringify(options)}`)
    this.counter += 1
    const authData = this.authData(FLAG_UP | (userVerified ? FLAG_UV : 0))
    const clientDataJSON = this.clientData("webauthn.get", signed, origin)
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey)
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: b64(clientDataJSON),
        authenticatorData: b64(authData),
        signature: b64(signature),
        ...(this.userHandle === undefined ? {} : { userHandle: this.userHandle })
      },
      authenticatorAttachment: "platform",
      clientExtensionResults: {}
    }
  }
}
