import { contentTypeOf, inspectImage } from "./Images.ts"

/**
 * What media bytes are, from their first bytes alone: the header decides,
 * never a Content-Type or a file name someone else chose. Only kinds a
 * browser shows and never runs are known (no SVG, no HTML).
 */
export interface SniffedMedia {
  readonly contentType: string
  /** The file name extension for the type: files are served typed by it (messages/attachments/Types.ts). */
  readonly extension: string
  readonly width: number | null
  readonly height: number | null
}

const ascii = (bytes: Uint8Array, at: number, text: string) => [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0))

const EXTENSIONS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
  "video/mp4": "mp4",
  "video/webm": "webm"
}

/** ISO base media (`....ftyp<brand>`): AVIF by its brand, MP4 otherwise; QuickTime (`qt  `) is neither. */
const isoMedia = (bytes: Uint8Array): string | undefined => {
  if (!ascii(bytes, 4, "ftyp") || bytes.length < 12) return undefined
  const brand = String.fromCharCode(...bytes.subarray(8, 12))
  if (brand === "avif" || brand === "avis") return "image/avif"
  return brand === "qt  " ? undefined : "video/mp4"
}

/** Matroska's EBML header with the `webm` doc type, which comes first in the header. */
const webm = (bytes: Uint8Array): boolean => {
  if (!(bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3)) return false
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64))
  return head.includes("webm", 4, "latin1")
}

/** The media kind of `bytes`, or undefined when they are none this server keeps. */
export const sniffMedia = (bytes: Uint8Array): SniffedMedia | undefined => {
  const image = inspectImage(bytes)
  const contentType = image !== undefined ? contentTypeOf[image.format] : isoMedia(bytes) ?? (webm(bytes) ? "video/webm" : undefined)
  if (contentType === undefined) return undefined
  return {
    contentType,
    extension: EXTENSIONS[contentType] ?? "bin",
    width: image === undefined || image.width === 0 ? null : image.width,
    height: image === undefined || image.height === 0 ? null : image.height
  }
}

/**
 * `name` with the extension of `media`: kept when it already says the type
 * (`.jpeg` for a JPEG), replaced when it says another, added when it has none.
 */
export const filenameFor = (name: string, media: SniffedMedia): string => {
  const dot = name.lastIndexOf(".")
  const stem = dot <= 0 ? name : name.slice(0, dot)
  const extension = dot <= 0 ? "" : name.slice(dot + 1).toLowerCase()
  const same = extension === media.extension || (media.extension === "jpg" && extension === "jpeg")
  return same ? name : `${stem.length === 0 ? "media" : stem}.${media.extension}`
}
