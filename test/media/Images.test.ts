import { assert, describe, expect, it } from "@effect/vitest"
import { decodeImage, inspectImage } from "../../src/media/Images.ts"
import { dataUri, gif, jpeg, png, webp } from "./Fixtures.ts"

const limits = { maxBytes: 256 * 1024, maxDimension: 2048 }
const problemOf = (value: string, custom = limits) => {
  const result = decodeImage(value, "image", custom)
  if (!("problem" in result)) throw new Error(`expected a problem, got an image: ${JSON.stringify(result.image.info)}`)
  return result.problem
}

describe("image headers", () => {
  it("reads a PNG's size and sees it is still", () => {
    assert.deepStrictEqual(inspectImage(png(64, 48)), { format: "png", width: 64, height: 48, animated: false })
  })

  it("reads GIFs and tells an animation from a still", () => {
    assert.deepStrictEqual(inspectImage(gif(32, 16)), { format: "gif", width: 32, height: 16, animated: false })
    assert.deepStrictEqual(inspectImage(gif(32, 16, 3)), { format: "gif", width: 32, height: 16, animated: true })
  })

  it("reads JPEG and WebP headers", () => {
    assert.deepStrictEqual(inspectImage(jpeg(640, 480)), { format: "jpeg", width: 640, height: 480, animated: false })
    assert.deepStrictEqual(inspectImage(webp(300, 200, true)), { format: "webp", width: 300, height: 200, animated: true })
  })

  it("recognises nothing in garbage or truncated files", () => {
    assert.strictEqual(inspectImage(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])), undefined)
    assert.strictEqual(inspectImage(png(8, 8).subarray(0, 12)), undefined)
    assert.strictEqual(inspectImage(new Uint8Array(0)), undefined)
  })
})

describe("decodeImage", () => {
  it("accepts a PNG data URI and bare base64, keeping the exact bytes", () => {
    const bytes = png(128, 128)
    for (const value of [dataUri(bytes), bytes.toString("base64")]) {
      const result = decodeImage(value, "image", limits)
      assert.ok("image" in result)
      assert.deepStrictEqual(Buffer.from(result.image.bytes), bytes)
      assert.deepStrictEqual(result.image.info, { format: "png", width: 128, height: 128, animated: false })
    }
  })

  it("accepts an animated GIF as animated", () => {
    const result = decodeImage(dataUri(gif(64, 64, 2), "image/gif"), "image", limits)
    assert.ok("image" in result)
    assert.strictEqual(result.image.info.animated, true)
  })

  it("refuses a type that is not an image format we take", () => {
    expect(problemOf(`data:image/bmp;base64,${png(4, 4).toString("base64")}`)).toMatchObject({
      path: "image",
      code: "INVALID_IMAGE_FORMAT"
    })
    expect(problemOf(`data:image/png,${png(4, 4).toString("base64")}`)).toMatchObject({ code: "INVALID_IMAGE_FORMAT" })
  })

  it("refuses files over the byte limit and images over the size limit", () => {
    const heavy = png(16, 16, 300 * 1024)
    expect(problemOf(dataUri(heavy))).toMatchObject({ code: "IMAGE_SIZE_EXCEEDS_LIMIT" })
    expect(problemOf(dataUri(png(4096, 1)))).toMatchObject({ code: "IMAGE_SIZE_EXCEEDS_LIMIT" })
    expect(problemOf(dataUri(png(64, 64)), { maxBytes: 64, maxDimension: 2048 })).toMatchObject({
      code: "IMAGE_SIZE_EXCEEDS_LIMIT"
    })
  })

  it("refuses garbage: bad base64, and base64 of something that is no image", () => {
    expect(problemOf("data:image/png;base64,@@@not-base64@@@")).toMatchObject({ code: "INVALID_BASE64_FORMAT" })
    expect(problemOf("")).toMatchObject({ code: "INVALID_BASE64_FORMAT" })
    expect(problemOf(dataUri(Buffer.from("just some text, no picture at all")))).toMatchObject({ code: "INVALID_IMAGE_DATA" })
  })
})
