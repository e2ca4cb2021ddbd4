import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

/** A bearer secret: 32 random bytes, base64url (43 characters). */
export const newToken = (): string => randomBytes(32).toString("base64url")

/** What is stored of a token: its SHA-256, never the token itself. */
export const tokenHash = (token: string): Buffer => createHash("sha256").update(token).digest()

export const sameBytes = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b)
