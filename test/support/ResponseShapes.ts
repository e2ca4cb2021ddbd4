import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js"
import { Schema } from "effect"
import { appendFileSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { CHECKED_LOG_VARIABLE } from "./ResponseShapesLog.ts"

/**
 * The production service's 2xx answers as JSON Schema (`reference/responses.json`): every
 * JSON answer a test receives through the shared helpers is checked against its
 * operation's schema, so a shape cannot drift without a test failing.
 */
const JsonSchemaObject = Schema.Record(Schema.String, Schema.Unknown)
const Reference = Schema.Struct({
  operations: Schema.Record(Schema.String, Schema.Struct({ status: Schema.Number, schema: Schema.optionalKey(JsonSchemaObject) })),
  $defs: Schema.Record(Schema.String, JsonSchemaObject)
})

const reference = Schema.decodeUnknownSync(Schema.fromJsonString(Reference))(
  readFileSync(join(import.meta.dirname, "..", "..", "..", "shared", "spec", "reference", "responses.json"), "utf8")
)

/**
 * Where the spec parts and responses.json differ, the parts win (responses.json says so
 * itself): an entry replaces its operation's reference schema where the part rules, and
 * names the section of the part. None so far: every built endpoint's answer matches the
 * reference as it stands (its `oneOf`s read as unions, see `prepare`).
 */
const deliberateDifferences: ReadonlyArray<{
  readonly operation: string
  /** The spec part's section that rules, e.g. "part C, Guild audit log". */
  readonly specReference: string
  readonly patch: (schema: object) => object
}> = []

const ajv = new Ajv2020({ allErrors: true, strict: false })
const integerIn = (min: number, max: number) => ({
  type: "number" as const,
  validate: (value: number) => Number.isInteger(value) && value >= min && value <= max
})
ajv.addFormat("int32", integerIn(-2147483648, 2147483647))
ajv.addFormat("int53", integerIn(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER))
ajv.addFormat("int64", /^-?[0-9]+$/)
ajv.addFormat("snowflake", /^(0|[1-9][0-9]*)$/)
ajv.addFormat("uri", (value: string) => URL.canParse(value))
ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i)

/**
 * Points `$ref`s at the shared definitions, and reads `oneOf` as `anyOf`: the reference's
 * `oneOf`s are the production service's unions, which take a value any branch takes (an
 * empty array is both `string[]` and `number[]`, so strict `oneOf` would refuse it).
 */
const prepare = (schema: object): object =>
  Object.fromEntries(Object.entries(schema).map(([key, value]) =>
    key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")
      ? [key, `responses${value}`]
      : [key === "oneOf" ? "anyOf" : key, prepareValue(value)]
  ))
const prepareValue = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(prepareValue) : typeof value === "object" && value !== null ? prepare(value) : value

/**
 * Shared definitions where a spec part rules over responses.json, each naming
 * the section: every operation whose answer refers to the definition follows it.
 */
const SOCIAL_OR_DOMAIN = { type: "string", enum: ["social", "domain"] }
const withProperty = (schema: Record<string, unknown>, key: string, value: object) => ({
  ...schema,
  properties: { ...(typeof schema.properties === "object" && schema.properties !== null ? schema.properties : {}), [key]: value }
})
const definitionDifferences: ReadonlyArray<{
  readonly definition: string
  readonly specReference: string
  readonly patch: (schema: Record<string, unknown>) => Record<string, unknown>
}> = [
  // The reference names the social network's type `bsky`; the part's neutral name is `social`.
  { definition: "ConnectionResponse", specReference: "part C, Connections", patch: (s) => withProperty(s, "type", SOCIAL_OR_DOMAIN) },
  {
    definition: "ConnectionVerificationResponse",
    specReference: "part C, Connections",
    patch: (s) => withProperty(s, "type", SOCIAL_OR_DOMAIN)
  }
]

const definitions = Object.fromEntries(Object.entries(reference.$defs).map(([name, schema]) => [
  name,
  definitionDifferences.filter((d) => d.definition === name).reduce((s, d) => d.patch(s), schema)
]))

ajv.addSchema({ $id: "responses", $defs: prepare(definitions) })

interface Template {
  readonly operation: string
  readonly method: string
  readonly segments: ReadonlyArray<string>
  readonly literals: number
}

const templates: ReadonlyArray<Template> = Object.keys(reference.operations).map((operation) => {
  const [method = "", path = ""] = operation.split(" ")
  const segments = path.split("/").slice(1)
  return { operation, method, segments, literals: segments.filter((s) => !s.startsWith("{")).length }
})

/** The reference operation a request is, by method and path template (`/v1` or not, query ignored). */
export const operationOf = (method: string, url: string): string | undefined => {
  const path = new URL(url, "http://host").pathname.replace(/^\/v1(?=\/)/, "")
  const segments = path.split("/").slice(1).map(decodeURIComponent)
  let best: Template | undefined
  for (const template of templates) {
    if (template.method !== method.toUpperCase() || template.segments.length !== segments.length) continue
    const matches = template.segments.every((part, i) => part.startsWith("{") || part === segments[i])
    if (matches && (best === undefined || template.literals > best.literals)) best = template
  }
  return best?.operation
}

const validators = new Map<string, ValidateFunction | null>()
const validatorOf = (operation: string): ValidateFunction | null => {
  const cached = validators.get(operation)
  if (cached !== undefined) return cached
  const schema = reference.operations[operation]?.schema
  const patched = deliberateDifferences
    .filter((d) => d.operation === operation)
    .reduce<object | undefined>((s, d) => (s === undefined ? s : d.patch(s)), schema)
  const validate = patched === undefined ? null : ajv.compile(prepare(patched))
  validators.set(operation, validate)
  return validate
}

/** The reference's operations by `METHOD /path`: their status and the schema of their body, if any. */
export const referenceOperations = reference.operations

/**
 * Where each checked operation is written down, one a line, when the run collects them
 * (vitest.config.ts): the full run then reports the built endpoints no test checked.
 */
const checkedLog = process.env[CHECKED_LOG_VARIABLE]
const checked = new Set<string>()
const noteChecked = (operation: string) => {
  if (checked.has(operation)) return
  checked.add(operation)
  if (checkedLog !== undefined) appendFileSync(checkedLog, `${operation}\n`)
}

/**
 * Checks a 2xx answer against its operation in the reference: the status (a 204 where a
 * body is due is as wrong as a body where none is), then the JSON body against the
 * schema. Throws naming the operation and ajv's errors; answers the operation whose body
 * it checked. Answers of operations the reference does not list (admin, health, this
 * server's own) pass. `body` is the parsed JSON, undefined for an empty answer.
 */
export const checkAgainstReference = (method: string, url: string, status: number, body: unknown): string | undefined => {
  if (status < 200 || status > 299) return undefined
  const operation = operationOf(method, url)
  if (operation === undefined) return undefined
  const expected = reference.operations[operation]?.status
  if (expected !== undefined && expected !== status) {
    throw new Error(`answer of ${operation}: status ${status}, the reference answers ${expected}; body: ${JSON.stringify(body)?.slice(0, 300)}`)
  }
  const validate = validatorOf(operation)
  if (validate === null) return undefined
  if (validate(body)) return operation
  const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`)
  throw new Error(
    `answer of ${operation} does not match reference/responses.json:\n  ${errors.join("\n  ")}\nbody: ${JSON.stringify(body)?.slice(0, 1500)}`
  )
}

/** `checkAgainstReference` for an answer the server gave, noted for the full run's report. */
export const checkResponseShape = (method: string, url: string, status: number, body: unknown): void => {
  const operation = checkAgainstReference(method, url, status, body)
  if (operation !== undefined) noteChecked(operation)
}
