import { createHash } from "node:crypto"

/** A stored object's name: the SHA-256 of its bytes, in hex. */
export const MEDIA_HASH = /^[0-9a-f]{64}$/

export const hashOf = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")
