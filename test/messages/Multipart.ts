import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import { Readable } from "node:stream"
import { type Reply, TestApi } from "../support/Api.ts"
import { checkResponseShape } from "../support/ResponseShapes.ts"

/** One part of a multipart body: a text field, or a file with its name. */
export type Part =
  | { readonly name: string; readonly value: string }
  | { readonly name: string; readonly filename: string; readonly data: Uint8Array; readonly type?: string }

export const BOUNDARY = "----guildhall-test-boundary-7f3a"

const partHead = (part: Part) =>
  "filename" in part
    ? `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\n` +
      `content-type: ${part.type ?? "application/octet-stream"}\r\n\r\n`
    : `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${part.name}"\r\n\r\n`

/** A multipart/form-data body, written out by hand so tests control every byte. */
export const multipartBody = (parts: ReadonlyArray<Part>): Buffer =>
  Buffer.concat([
    ...parts.flatMap((part) => [
      Buffer.from(partHead(part)),
      "filename" in part ? Buffer.from(part.data) : Buffer.from(part.value),
      Buffer.from("\r\n")
    ]),
    Buffer.from(`--${BOUNDARY}--\r\n`)
  ])

const parse = (text: string): unknown => {
  try {
    return text === "" ? undefined : JSON.parse(text)
  } catch {
    return text
  }
}

/** POSTs a multipart message create over real HTTP. */
export const postMultipart = (token: string, channelId: string, parts: ReadonlyArray<Part>, rawBody?: Buffer) =>
  Effect.flatMap(TestApi, (api) =>
    Effect.promise(async (): Promise<Reply> => {
      const response = await fetch(`${api.baseUrl}/channels/${channelId}/messages`, {
        method: "POST",
        headers: { authorization: token, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
        body: rawBody ?? multipartBody(parts)
      })
      const body = parse(await response.text())
      checkResponseShape("POST", `/channels/${channelId}/messages`, response.status, body)
      return { status: response.status, headers: response.headers, body }
    }))

/** `payload_json` as a part. */
export const payload = (json: unknown): Part => ({ name: "payload_json", value: JSON.stringify(json) })

/**
 * A multipart create whose one file is `megabytes` MiB of zeros, generated as
 * it is sent (neither side of the test holds it). The answer is taken as soon
 * as it comes, even while the upload is still being sent.
 */
export const postHugeUpload = (token: string, channelId: string, megabytes: number) =>
  Effect.flatMap(TestApi, (api) =>
    Effect.promise(() =>
      new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        const head = Buffer.concat([
          Buffer.from(partHead(payload({ attachments: [{ id: 0 }] }))),
          Buffer.from(JSON.stringify({ attachments: [{ id: 0 }] })),
          Buffer.from("\r\n"),
          Buffer.from(partHead({ name: "files[0]", filename: "huge.bin", data: new Uint8Array() }))
        ])
        const megabyte = Buffer.alloc(1024 * 1024)
        const body = Readable.from((function*() {
          yield head
          for (let i = 0; i < megabytes; i++) yield megabyte
          yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`)
        })())
        const url = new URL(`${api.baseUrl}/channels/${channelId}/messages`)
        const req = httpRequest(url, {
          method: "POST",
          headers: { authorization: token, "content-type": `multipart/form-data; boundary=${BOUNDARY}` }
        }, (response) => {
          let text = ""
          response.setEncoding("utf8")
          response.on("data", (chunk: string) => (text += chunk))
          response.on("end", () => {
            body.destroy()
            resolve({ status: response.statusCode ?? 0, body: parse(text) })
          })
        })
        req.on("error", reject)
        body.pipe(req)
      })
    ))
