import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createGuild } from "../support/Cast.ts"
import { field, type Reply, TestApi } from "../support/Api.ts"
import { BOUNDARY, multipartBody } from "../messages/Multipart.ts"

/**
 * Every operation of `/openapi.json`, sent with one string at a time (a path
 * parameter, a query value, the audit-log reason, a field of its body) replaced by text Postgres
 * cannot store. Each must be refused with a 4xx and the error object, never a
 * 500 or an actor timeout, and the guild must keep answering afterwards.
 */

interface JsonSchema {
  readonly type?: string
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly additionalProperties?: boolean | JsonSchema
  readonly items?: JsonSchema
  readonly minItems?: number
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly enum?: ReadonlyArray<unknown>
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly minimum?: number
  readonly maximum?: number
  readonly $ref?: string
}

interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "header"
  readonly required: boolean
  readonly schema: JsonSchema
}

interface Operation {
  readonly operationId: string
  readonly parameters?: ReadonlyArray<Parameter>
  readonly requestBody?: { readonly content: Readonly<Record<string, { readonly schema: JsonSchema }>> }
}

interface Document {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>
  readonly components: { readonly schemas: Readonly<Record<string, JsonSchema>> }
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const NUMERIC = "^[+-]?(?:\\d+(?:\\.\\d+)?|\\.\\d+)(?:[Ee][+-]?\\d+)?$"

/** A value valid by the subset of JSON Schema the document uses (the first branch of each anyOf). */
const exampleOf = (doc: Document, schema: JsonSchema): Json => {
  if (schema.$ref !== undefined) {
    const target = doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")]
    if (target === undefined) throw new Error(`unresolved ${schema.$ref}`)
    return exampleOf(doc, target)
  }
  if (schema.enum !== undefined) return schema.enum[0] as Json
  if (schema.anyOf !== undefined) {
    const branch = schema.anyOf.find((s) => s.type !== "null") ?? schema.anyOf[0]
    return branch === undefined ? null : exampleOf(doc, branch)
  }
  switch (schema.type) {
    case "object": {
      const entries = Object.entries(schema.properties ?? {}).map(([key, s]) => [key, exampleOf(doc, s)] as const)
      const extra = typeof schema.additionalProperties === "object" ? [["key", exampleOf(doc, schema.additionalProperties)] as const] : []
      return Object.fromEntries([...entries, ...extra])
    }
    case "array":
      return schema.items === undefined ? [] : Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => exampleOf(doc, schema.items ?? {}))
    case "string":
      if (schema.pattern === NUMERIC) return "1"
      return "x".repeat(Math.max(1, schema.minLength ?? 0)).slice(0, schema.maxLength ?? Infinity)
    case "integer":
    case "number":
      return Math.max(schema.minimum ?? 0, Math.min(schema.maximum ?? 0, 1))
    case "boolean":
      return false
    default:
      return null
  }
}

/** The path (`a.b.0`) of every string in a value. */
const stringPaths = (value: Json, path: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  if (typeof value === "string") return [path]
  if (value === null || typeof value !== "object") return []
  if (Array.isArray(value)) return value.flatMap((item: Json, i) => stringPaths(item, [...path, i]))
  return Object.entries(value).flatMap(([key, item]) => stringPaths(item, [...path, key]))
}

const HOSTILE = "a\u0000b"

const isJsonArray = (value: Json): value is ReadonlyArray<Json> => Array.isArray(value)

/** The value with the string at `path` replaced by `text`. */
const replaced = (value: Json, path: ReadonlyArray<string | number>, text: string): Json => {
  if (path.length === 0) return text
  const [head, ...rest] = path
  if (isJsonArray(value)) return value.map((item, i) => (i === head ? replaced(item, rest, text) : item))
  if (value === null || typeof value !== "object") return value
  const record: { readonly [key: string]: Json } = value
  return { ...record, [String(head)]: replaced(record[String(head)] ?? null, rest, text) }
}

/**
 * What is wrong with the answer to a hostile request, if anything: a refusal
 * the client can read is a 4xx with `{code, message}` and, where the edge
 * decides, 400 INVALID_FORM_BODY naming the field.
 */
const faultOf = (reply: Reply, path?: string): string | undefined => {
  const body = typeof reply.body === "object" && reply.body !== null ? reply.body as Record<string, unknown> : {}
  if (reply.status < 400 || reply.status >= 500) return `answered ${reply.status}`
  if (typeof body.code !== "string" || typeof body.message !== "string") return "no error object"
  if (path === undefined) return undefined
  const errors = Array.isArray(body.errors) ? body.errors as ReadonlyArray<{ readonly path?: unknown }> : []
  return body.code === "INVALID_FORM_BODY" && errors[0]?.path === path ? undefined : `did not name ${path}`
}

layer(TestApi.layer, { timeout: 600_000, excludeTestServices: true })("Hostile text, every operation", (it) => {
  it.effect("refuses U+0000 in every path parameter, query value, audit-log reason and body string of every operation, and the guild keeps answering", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const { guildId, channelId } = yield* createGuild(user.token)
      const message = yield* api.request("POST", `/channels/${channelId}/messages`, { token: user.token, body: { content: "hello" } })
      assert.strictEqual(message.status, 200, JSON.stringify(message.body))
      const known: Record<string, string> = {
        guild_id: guildId,
        channel_id: channelId,
        message_id: field(message.body, "id"),
        user_id: user.userId,
        target_id: user.userId,
        role_id: guildId,
        overwrite_id: guildId
      }
      const docReply = yield* api.request("GET", "/openapi.json")
      assert.strictEqual(docReply.status, 200)
      // The document is this server's own answer, typed by the interfaces above.
      const doc = docReply.body as Document

      let requests = 0
      // Every fault, so one run lists all the operations that need fixing.
      const faults: Array<string> = []
      const expectRefused = (reply: Reply, what: string, path?: string) => {
        const fault = faultOf(reply, path)
        if (fault !== undefined) faults.push(`${what}: ${fault}: ${String(JSON.stringify(reply.body)).slice(0, 160)}`)
      }
      const send = (method: string, path: string, options: {
        body?: unknown
        rawBody?: Buffer | string
        contentType?: string
        headers?: Record<string, string>
      } = {}) =>
        Effect.gen(function*() {
          requests++
          const token = path.startsWith("/admin") ? `Admin ${api.adminKey}` : user.token
          if (options.rawBody === undefined) return yield* api.request(method, path, { token, body: options.body, headers: options.headers })
          const raw = options.rawBody
          return yield* Effect.promise(async (): Promise<Reply> => {
            const response = await fetch(api.baseUrl + path, {
              method,
              headers: { authorization: token, "content-type": options.contentType ?? "application/json" },
              body: raw
            })
            const text = await response.text()
            let body: unknown = text
            try {
              body = JSON.parse(text)
            } catch {
              // not JSON: the assertion shows the text
            }
            return { status: response.status, headers: response.headers, body }
          })
        })

      for (const [template, methods] of Object.entries(doc.paths)) {
        for (const [method, operation] of Object.entries(methods)) {
          const verb = method.toUpperCase()
          const parameters = operation.parameters ?? []
          const pathParams = parameters.filter((p) => p.in === "path")
          const queryParams = parameters.filter((p) => p.in === "query")
          // Headers cannot carry U+0000, but the audit-log reason is URL-encoded and decoded before it is stored.
          const headerParams = parameters.filter((p) => p.in === "header" && p.name === "x-audit-log-reason")
          const fill = (hostileParam?: string) =>
            template.replace(/\{([^}]+)\}/g, (_, name: string) =>
              name === hostileParam ? encodeURIComponent(HOSTILE) : encodeURIComponent(known[name] ?? "1"))
          const requiredQuery = queryParams.filter((p) => p.required)
          const query = (hostile?: string) => {
            const params = new URLSearchParams()
            for (const p of requiredQuery) params.set(p.name, String(exampleOf(doc, p.schema)))
            if (hostile !== undefined) params.set(hostile, HOSTILE)
            const text = params.toString()
            return text === "" ? "" : `?${text}`
          }
          const what = (detail: string) => `${verb} ${template} (${operation.operationId}) with U+0000 in ${detail}`

          for (const param of pathParams) {
            expectRefused(yield* send(verb, fill(param.name) + query()), what(`path parameter ${param.name}`), param.name)
          }
          for (const param of queryParams) {
            expectRefused(yield* send(verb, fill() + query(param.name)), what(`query value ${param.name}`), param.name)
          }
          const url = fill() + query()
          for (const param of headerParams) {
            const body = operation.requestBody?.content["application/json"] === undefined
              ? undefined
              : exampleOf(doc, operation.requestBody.content["application/json"].schema)
            expectRefused(yield* send(verb, url, { body, headers: { [param.name]: "a%00b" } }), what(`header ${param.name}`), param.name)
          }
          for (const [contentType, { schema }] of Object.entries(operation.requestBody?.content ?? {})) {
            const valid = exampleOf(doc, schema)
            for (const path of stringPaths(valid)) {
              const hostile = replaced(valid, path, HOSTILE)
              const named = path.length === 0 ? "root" : path.join(".")
              const detail = what(`body ${contentType} ${named}`)
              if (contentType === "application/json") {
                expectRefused(yield* send(verb, url, { body: hostile }), detail, named)
              } else if (contentType === "application/x-www-form-urlencoded") {
                const form = new URLSearchParams(Object.entries(typeof hostile === "object" && hostile !== null ? hostile : {})
                  .filter(([, v]) => v !== null)
                  .map(([k, v]): [string, string] => [k, String(v)]))
                expectRefused(yield* send(verb, url, { rawBody: form.toString(), contentType }), detail, named)
              } else if (contentType === "multipart/form-data") {
                const parts = Object.entries(typeof hostile === "object" && hostile !== null ? hostile : {})
                  .filter(([, v]) => v !== null)
                  .map(([name, v]) => ({ name, value: String(v) }))
                expectRefused(
                  yield* send(verb, url, { rawBody: multipartBody(parts), contentType: `multipart/form-data; boundary=${BOUNDARY}` }),
                  detail,
                  named
                )
              }
            }
          }
        }
      }
      // The document lists the API: a sweep that sent nearly nothing checked nothing.
      assert.isAbove(requests, 700)

      // A multipart message create: the hostile text inside payload_json, and in a file's name.
      const inPayload = yield* send("POST", `/channels/${channelId}/messages`, {
        rawBody: multipartBody([{ name: "payload_json", value: JSON.stringify({ content: HOSTILE }) }]),
        contentType: `multipart/form-data; boundary=${BOUNDARY}`
      })
      expectRefused(inPayload, "payload_json with U+0000", "content")
      const inFilename = yield* send("POST", `/channels/${channelId}/messages`, {
        rawBody: multipartBody([
          { name: "payload_json", value: JSON.stringify({ attachments: [{ id: 0 }] }) },
          { name: "files[0]", filename: HOSTILE, data: new Uint8Array([1, 2, 3]) }
        ]),
        contentType: `multipart/form-data; boundary=${BOUNDARY}`
      })
      expectRefused(inFilename, "a file named with U+0000")
      assert.deepStrictEqual(faults, [])

      // The guild's actor is not wedged: it reads and commits a write at once.
      const read = yield* api.request("GET", `/guilds/${guildId}`, { token: user.token })
      assert.strictEqual(read.status, 200)
      const write = yield* api.request("POST", `/channels/${channelId}/messages`, { token: user.token, body: { content: "still here" } })
      assert.strictEqual(write.status, 200, JSON.stringify(write.body))
      const renamed = yield* api.request("PATCH", `/guilds/${guildId}`, { token: user.token, body: { name: "Still The Hall" } })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
    }))
})
