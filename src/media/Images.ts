import type { FieldError } from "../model/Errors.ts"

/**
 * What an uploaded image is, read from its header alone: format, dimensions,
 * whether it has more than one frame. Nothing is decoded past the header, so a
 * hostile file costs a few byte comparisons.
 */
export type ImageFormat = "png" | "jpeg" | "gif" | "webp"

export interface ImageInfo {
  readonly format: ImageFormat
  readonly width: number
  readonly height: number
  readonly animated: boolean
}

export const contentTypeOf: Readonly<Record<ImageFormat, string>> = {
  png: "image/png",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp"
}

const ascii = (bytes: Uint8Array, at: number, text: string) =>
  [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0))
const byte = (bytes: Uint8Array, at: number) => bytes[at] ?? 0
const u16be = (bytes: Uint8Array, at: number) => (byte(bytes, at) << 8) | byte(bytes, at + 1)
const u16le = (bytes: Uint8Array, at: number) => byte(bytes, at) | (byte(bytes, at + 1) << 8)
const u24le = (bytes: Uint8Array, at: number) => u16le(bytes, at) | (byte(bytes, at + 2) << 16)
const u32be = (bytes: Uint8Array, at: number) => u16be(bytes, at) * 0x10000 + u16be(bytes, at + 2)

const contains = (bytes: Uint8Array, needle: ReadonlyArray<number>, atLeast = 1) => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const pattern = Buffer.from(needle)
  let found = 0
  for (let at = buffer.indexOf(pattern); at >= 0 && found < atLeast; at = buffer.indexOf(pattern, at + 1)) found++
  return found >= atLeast
}
const codes = (text: string) => [...text].map((c) => c.charCodeAt(0))

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

const png = (bytes: Uint8Array): ImageInfo | undefined => {
  if (!PNG_SIGNATURE.every((b, i) => bytes[i] === b) || !ascii(bytes, 12, "IHDR") || bytes.length < 24) return undefined
  // An APNG announces its frames in an `acTL` chunk before the image data.
  return { format: "png", width: u32be(bytes, 16), height: u32be(bytes, 20), animated: contains(bytes, codes("acTL")) }
}

const gif = (bytes: Uint8Array): ImageInfo | undefined => {
  if (!(ascii(bytes, 0, "GIF87a") || ascii(bytes, 0, "GIF89a")) || bytes.length < 10) return undefined
  // One graphic-control extension per frame: two or more mean an animation.
  return { format: "gif", width: u16le(bytes, 6), height: u16le(bytes, 8), animated: contains(bytes, [0x21, 0xf9, 0x04], 2) }
}

/** JPEG: walk the segments to the first start-of-frame marker, which holds the dimensions. */
const jpeg = (bytes: Uint8Array): ImageInfo | undefined => {
  if (byte(bytes, 0) !== 0xff || byte(bytes, 1) !== 0xd8) return undefined
  let at = 2
  while (at + 9 < bytes.length) {
    if (byte(bytes, at) !== 0xff) return undefined
    const marker = byte(bytes, at + 1)
    if (marker === 0xff) {
      at++
      continue
    }
    const standalone = marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)
    if (standalone) {
      at += 2
      continue
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isFrame) return { format: "jpeg", height: u16be(bytes, at + 5), width: u16be(bytes, at + 7), animated: false }
    at += 2 + u16be(bytes, at + 2)
  }
  return undefined
}

const webp = (bytes: Uint8Array): ImageInfo | undefined => {
  if (!ascii(bytes, 0, "RIFF") || !ascii(bytes, 8, "WEBP") || bytes.length < 30) return undefined
  if (ascii(bytes, 12, "VP8 ")) {
    if (byte(bytes, 23) !== 0x9d || byte(bytes, 24) !== 0x01 || byte(bytes, 25) !== 0x2a) return undefined
    return { format: "webp", width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff, animated: false }
  }
  if (ascii(bytes, 12, "VP8L")) {
    if (byte(bytes, 20) !== 0x2f) return undefined
    const [b0, b1, b2, b3] = [byte(bytes, 21), byte(bytes, 22), byte(bytes, 23), byte(bytes, 24)]
    return {
      format: "webp",
      width: 1 + (((b1 & 0x3f) << 8) | b0),
      height: 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)),
      animated: false
    }
  }
  if (ascii(bytes, 12, "VP8X")) {
    return { format: "webp", width: 1 + u24le(bytes, 24), height: 1 + u24le(bytes, 27), animated: (byte(bytes, 20) & 0x02) !== 0 }
  }
  return undefined
}

/** The image's header, or undefined when the bytes are not a PNG, JPEG, GIF or WebP. */
export const inspectImage = (bytes: Uint8Array): ImageInfo | undefined =>
  png(bytes) ?? gif(bytes) ?? jpeg(bytes) ?? webp(bytes)

export interface ImageLimits {
  readonly maxBytes: number
  /** Width and height, each. */
  readonly maxDimension: number
}

export interface DecodedImage {
  readonly bytes: Uint8Array
  readonly info: ImageInfo
}

const DATA_URI = /^data:([^;,]*)(;base64)?,(.*)$/s
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp"])

/**
 * A Base64ImageType field (a `data:image/...;base64,` URI, or bare base64) as
 * bytes and header, or the field error saying what is wrong with it.
 */
export const decodeImage = (
  value: string,
  path: string,
  limits: ImageLimits
): { readonly image: DecodedImage } | { readonly problem: FieldError } => {
  const fail = (code: string, message: string) => ({ problem: { path, code, message } })
  const uri = DATA_URI.exec(value)
  if (uri !== null && (!IMAGE_TYPES.has((uri[1] ?? "").toLowerCase()) || uri[2] === undefined)) {
    return fail("INVALID_IMAGE_FORMAT", "Images are base64 PNG, JPEG, GIF or WebP")
  }
  const data = (uri === null ? value : uri[3] ?? "").replace(/\s+/g, "")
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) return fail("INVALID_BASE64_FORMAT", "Not valid base64")
  // Checked on the encoded length first, so an oversized upload is never decoded.
  if ((data.length / 4) * 3 - 2 > limits.maxBytes) {
    return fail("IMAGE_SIZE_EXCEEDS_LIMIT", `Images are at most ${Math.floor(limits.maxBytes / 1024)} KiB`)
  }
  const bytes = new Uint8Array(Buffer.from(data, "base64"))
  if (bytes.length > limits.maxBytes) {
    return fail("IMAGE_SIZE_EXCEEDS_LIMIT", `Images are at most ${Math.floor(limits.maxBytes / 1024)} KiB`)
  }
  const info = inspectImage(bytes)
  if (info === undefined || info.width === 0 || info.height === 0) {
    return fail("INVALID_IMAGE_DATA", "Not a PNG, JPEG, GIF or WebP image")
  }
  if (info.width > limits.maxDimension || info.height > limits.maxDimension) {
    return fail("IMAGE_SIZE_EXCEEDS_LIMIT", `Images are at most ${limits.maxDimension}x${limits.maxDimension} pixels`)
  }
  return { image: { bytes, info } }
}
