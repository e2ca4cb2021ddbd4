import { contentTypeOf, inspectImage } from "../../media/Images.ts"

/**
 * The content type of an attachment, decided the same way when it is sent and
 * when it is served: by the file name's extension, else by an image header,
 * else opaque bytes. The uploader's own Content-Type is not trusted: the file
 * is served from the API's origin, and a file announced as text/html would
 * be a page running there. Only types that browsers do not run are listed.
 */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  wav: "audio/wav",
  flac: "audio/flac",
  m4a: "audio/mp4",
  aac: "audio/aac",
  txt: "text/plain; charset=utf-8",
  log: "text/plain; charset=utf-8",
  md: "text/plain; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  json: "application/json",
  pdf: "application/pdf",
  zip: "application/zip"
}

const OPAQUE = "application/octet-stream"

export const contentTypeFor = (filename: string, head: Uint8Array): string => {
  const dot = filename.lastIndexOf(".")
  const byName = dot < 0 ? undefined : BY_EXTENSION[filename.slice(dot + 1).toLowerCase()]
  if (byName !== undefined) return byName
  const image = inspectImage(head)
  return image === undefined ? OPAQUE : contentTypeOf[image.format]
}

export const isAudio = (contentType: string): boolean => contentType.startsWith("audio/")

/** Width and height of an image attachment, from its first bytes. */
export const dimensionsOf = (contentType: string, head: Uint8Array) => {
  if (!contentType.startsWith("image/")) return {}
  const image = inspectImage(head)
  return image === undefined ? {} : { width: image.width, height: image.height }
}
