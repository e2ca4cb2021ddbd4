import { createHash } from "node:crypto"
import type { FieldError } from "../model/Errors.ts"

/**
 * Avatars and banners. There is no asset store yet, so an image is checked
 * (a PNG, JPEG, GIF or WebP within the size limit) and kept as its hash only:
 * the first 32 hex digits of the SHA-256 of its bytes, `a_`-prefixed when it
 * is animated, as clients expect an image hash to look. The bytes themselves
 * are not stored.
 */

/** Decoded bytes; the request body limit (1 MiB of base64) is reached a little after this. */
export const MAX_IMAGE_BYTES = 700 * 1024

type Kind = "png" | "jpeg" | "gif" | "webp"

const startsWith = (bytes: Buffer, prefix: ReadonlyArray<number>, at = 0) => prefix.every((b, i) => bytes[at + i] === b)
const ascii = (text: string) => [...Buffer.from(text, "latin1")]

const kindOf = (bytes: Buffer): Kind | undefined => {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png"
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "jpeg"
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "gif"
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "webp"
  return undefined
}

const count = (bytes: Buffer, needle: Buffer): number => {
  let n = 0
  for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + needle.length)) n++
  return n
}

/** More than one frame: GIF graphic-control blocks, an APNG `acTL` chunk, a WebP `ANIM` chunk. */
const isAnimated = (bytes: Buffer, kind: Kind): boolean => {
  switch (kind) {
    case "gif":
      return count(bytes, Buffer.from([0x21, 0xf9, 0x04])) > 1
    case "png":
      return bytes.includes(Buffer.from("acTL", "latin1"))
    case "webp":
      return bytes.includes(Buffer.from("ANIM", "latin1"))
    case "jpeg":
      return false
  }
}

const DATA_URI = /^data:([^;,]*)(;base64)?,(.*)$/s
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
const MIME_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp"])

/** The image's hash, or the field error saying what is wrong with it. */
export const imageHash = (value: string, path: string): { readonly hash: string } | { readonly problem: FieldError } => {
  const fail = (code: string, message: string) => ({ problem: { path, code, message } })
  const uri = DATA_URI.exec(value)
  if (uri !== null && (!MIME_TYPES.has((uri[1] ?? "").toLowerCase()) || uri[2] === undefined)) {
    return fail("INVALID_IMAGE_FORMAT", "Images are base64 PNG, JPEG, GIF or WebP")
  }
  const data = (uri === null ? value : uri[3] ?? "").replace(/\s+/g, "")
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) {
    return fail("INVALID_BASE64_FORMAT", "Not valid base64")
  }
  const bytes = Buffer.from(data, "base64")
  if (bytes.length > MAX_IMAGE_BYTES) {
    return fail("IMAGE_SIZE_EXCEEDS_LIMIT", `Images are at most ${MAX_IMAGE_BYTES / 1024} KiB`)
  }
  const kind = kindOf(bytes)
  if (kind === undefined) return fail("INVALID_IMAGE_DATA", "Not a PNG, JPEG, GIF or WebP image")
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 32)
  return { hash: isAnimated(bytes, kind) ? `a_${hash}` : hash }
}

/**
 * `imageHash` for an optional, clearable image field: undefined (not sent) and null
 * (cleared) pass through; a bad image adds its field error to `problems` and gives undefined.
 */
export const imageFieldHash = (problems: Array<FieldError>) => (value: string | null | undefined, path: string) => {
  if (value === undefined || value === null) return value
  const checked = imageHash(value, path)
  if ("problem" in checked) {
    problems.push(checked.problem)
    return undefined
  }
  return checked.hash
}
