import { assert, describe, it } from "@effect/vitest"
import { Cause, Exit, Option, Schema } from "effect"
import { HttpApi, HttpApiSchema, OpenApi } from "effect/http-api"
import { Api } from "../../src/http/Api.ts"
import { fieldErrors } from "../../src/http/ErrorResponses.ts"

/**
 * Every PATCH and PUT body, field by field: `/openapi.json` says the field may be null
 * exactly when the decoder takes null for it, and a null taken arrives as null.
 * `Schema.optional(X)` broke both: its JSON codec reads null as "undefined",
 * the document calls the field nullable, and the key reached the guild actor
 * present but undefined (500). A field that may not be null is refused at the
 * edge with 400 INVALID_FORM_BODY naming it.
 */

interface JsonSchema {
  readonly type?: string | ReadonlyArray<string>
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly properties?: Record<string, JsonSchema>
  readonly items?: JsonSchema
}

const nullable = (schema: JsonSchema): boolean =>
  schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null")) ||
  (schema.anyOf ?? []).some(nullable)

/** A JSON body's schema (not a stream): it needs no services, as the server decodes every body with none. */
const jsonBody = (schema: Schema.Top | HttpApiSchema.StreamUint8Array | HttpApiSchema.StreamNdjson<Schema.Top>): schema is Schema.Codec<unknown, unknown> =>
  !("~effect/http-api/HttpApiSchema/Stream" in schema)

const decodeRequestBody = Schema.decodeUnknownOption(Schema.Struct({
  content: Schema.Struct({ "application/json": Schema.Struct({ schema: Schema.Record(Schema.String, Schema.Unknown) }) })
}))

/** The JSON body's schema as `/openapi.json` documents it. */
const documented = (requestBody: unknown): JsonSchema | undefined =>
  Option.getOrUndefined(Option.map(decodeRequestBody(requestBody), (body) => body.content["application/json"].schema))

interface Body {
  readonly route: string
  readonly decoder: Schema.Codec<unknown, unknown>
  readonly document: JsonSchema
}

const updateBodies = (): ReadonlyArray<Body> => {
  const document = OpenApi.fromApi(Api)
  const bodies: Array<Body> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (endpoint.method !== "PATCH" && endpoint.method !== "PUT") return
      const payload = endpoint.payload.get("application/json")
      const path = endpoint.path.replace(/:(\w+)/g, "{$1}")
      const requestBody: unknown = document.paths[path]?.[endpoint.method === "PATCH" ? "patch" : "put"]?.requestBody
      if (payload === undefined || payload.encoding._tag === "Stream") return
      const schema = documented(requestBody)
      if (schema === undefined) return
      for (const decoder of payload.schemas) {
        if (jsonBody(decoder)) bodies.push({ route: `${endpoint.method} ${path}`, decoder: Schema.toCodecJson(decoder), document: schema })
      }
    }
  })
  return bodies
}

describe("PATCH and PUT bodies and null", () => {
  it("each field takes null exactly when the document says so, and keeps it null", () => {
    const bodies = updateBodies()
    assert.isAbove(bodies.length, 20)
    const wrong: Array<string> = []
    for (const { route, decoder, document } of bodies) {
      // An array body (positions) is checked on its items.
      const inArray = document.properties === undefined && document.items !== undefined
      const properties = (inArray ? document.items?.properties : document.properties) ?? {}
      for (const [key, property] of Object.entries(properties)) {
        const body = inArray ? [{ [key]: null }] : { [key]: null }
        const exit = Schema.decodeUnknownExit(decoder)(body, { errors: "all" })
        const at = inArray ? `0.${key}` : key
        const refused = Exit.isFailure(exit) && exit.cause.reasons.some((reason) =>
          Cause.isFailReason(reason) && fieldErrors(reason.error, "Payload").some((f) => f.path === at)
        )
        if (nullable(property) === refused) {
          wrong.push(`${route} ${at}: documented ${nullable(property) ? "nullable" : "not nullable"}, null ${refused ? "refused" : "taken"}`)
        }
        if (Exit.isSuccess(exit)) {
          const item: unknown = inArray && Array.isArray(exit.value) ? exit.value[0] : exit.value
          const value: unknown = typeof item === "object" && item !== null ? Reflect.get(item, key) : item
          if (value !== null) wrong.push(`${route} ${at}: null taken as ${String(value)}`)
        }
      }
    }
    assert.deepStrictEqual(wrong, [])
  })
})
