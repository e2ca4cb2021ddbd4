import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from "node:crypto"

/** A bearer secret: 32 random bytes, base64url (43 characters). */
export const newToken = (): string => randomBytes(32).toString("base64url")

/** What is stored of a token: its SHA-256, never the token itself. */
export const tokenHash = (token: string): Buffer => createHash("sha256").update(token).digest()

export const sameBytes = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b)

const IV_BYTES = 12
const TAG_BYTES = 16

/**
 * A secret we must give back to ourselves later (a media server's API secret),
 * sealed with AES-256-GCM under a 32-byte key: IV, tag, ciphertext in one buffer.
 * The tag makes a changed row or a wrong key fail to open rather than read as garbage.
 */
export const seal = (key: Buffer, plaintext: string): Buffer => {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body])
}

/** The plaintext of `seal`, or undefined when the key is not the one it was sealed with (or the bytes changed). */
export const unseal = (key: Buffer, sealed: Uint8Array): string | undefined => {
  const bytes = Buffer.from(sealed)
  if (bytes.length < IV_BYTES + TAG_BYTES) return undefined
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES))
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8")
  } catch {
    return undefined
  }
}
