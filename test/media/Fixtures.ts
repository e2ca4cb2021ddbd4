import { crc32, deflateSync } from "node:zlib"

/** Real image files built in memory, so the tests carry no binary fixtures. */

const chunk = (type: string, data: Buffer) => {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, "latin1"), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** A grey RGB PNG of the given size; `padding` adds a text chunk to make it heavier. */
export const png = (width: number, height: number, padding = 0): Buffer => {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8)
  const rows = Buffer.alloc((width * 3 + 1) * height, 0x80)
  for (let y = 0; y < height; y++) rows[y * (width * 3 + 1)] = 0
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    ...(padding > 0 ? [chunk("tEXt", Buffer.alloc(padding, 0x61))] : []),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0))
  ])
}

/** A GIF of `frames` one-colour frames (two or more make it animated). */
export const gif = (width: number, height: number, frames = 1): Buffer => {
  const screen = Buffer.alloc(7)
  screen.writeUInt16LE(width, 0)
  screen.writeUInt16LE(height, 2)
  screen.set([0x80, 0, 0], 4)
  const frame = () => {
    const descriptor = Buffer.alloc(10)
    descriptor[0] = 0x2c
    descriptor.writeUInt16LE(width, 5)
    descriptor.writeUInt16LE(height, 7)
    return Buffer.concat([
      Buffer.from([0x21, 0xf9, 0x04, 0x00, 0x0a, 0x00, 0x00, 0x00]),
      descriptor,
      Buffer.from([0x02, 0x02, 0x44, 0x01, 0x00])
    ])
  }
  return Buffer.concat([
    Buffer.from("GIF89a", "latin1"),
    screen,
    Buffer.from([0, 0, 0, 0xff, 0xff, 0xff]),
    ...Array.from({ length: frames }, frame),
    Buffer.from([0x3b])
  ])
}

/** The head of a baseline JPEG: enough segments for the header to be read. */
export const jpeg = (width: number, height: number): Buffer => {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0, 0, 1, 0, 1, 0, 0])
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x0b, 0x08, 0, 0, 0, 0, 0x01, 0x01, 0x11, 0x00])
  sof.writeUInt16BE(height, 5)
  sof.writeUInt16BE(width, 7)
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])])
}

/** An extended WebP header (VP8X), animated or not. */
export const webp = (width: number, height: number, animated = false): Buffer => {
  const vp8x = Buffer.alloc(10)
  vp8x[0] = animated ? 0x02 : 0
  vp8x.writeUIntLE(width - 1, 4, 3)
  vp8x.writeUIntLE(height - 1, 7, 3)
  const body = Buffer.concat([Buffer.from("WEBPVP8X", "latin1"), Buffer.from([10, 0, 0, 0]), vp8x])
  const size = Buffer.alloc(4)
  size.writeUInt32LE(body.length)
  return Buffer.concat([Buffer.from("RIFF", "latin1"), size, body])
}

export const dataUri = (bytes: Buffer, type = "image/png") => `data:${type};base64,${bytes.toString("base64")}`
