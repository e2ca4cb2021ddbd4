import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js"
import { readFileSync } from "node:fs"
import { join } from "node:path"

/**
 * The production service's 2xx answers as JSON Schema (`reference/responses.json`): every
 * JSON answer a test receives through the shared helpers is checked against its
 * operation's schema, so a shape cannot drift without a test failing.
 */
interface Reference {
  readonly operations: Readonly<Record<string, { readonly status: number; readonly schema?: object }>>
  readonly $defs: Readonly<Record<string, object>>
}

const reference: Reference = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "..", "..", "shared", "spec", "reference", "responses.json"), "utf8")
)

/**
 * Where the spec parts and responses.json differ, the parts win (responses.json says so
 * itself): the fields below are checked against the part, not the reference. Each entry
 * names its operation, the JSON pointer into its reference schema that the part
 * replaces, and the section of the part that rules.
 */
const deliberateDifferences: ReadonlyArray<{
  readonly operation: string
  readonly reason: string
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
ajv.addSchema({ $id: "responses", $defs: reference.$defs })

const rewriteRefs = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(rewriteRefs)
  if (typeof node !== "object" || node === null) return node
  return Object.fromEntries(Object.entries(node).map(([key, value]) =>
    key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")
      ? [key, `responses${value}`]
      : [key, rewriteRefs(value)]
  ))
}

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
  const validate = patched === undefined ? null : ajv.compile(rewriteRefs(patched) as object)
  validators.set(operation, validate)
  return validate
}

/** Operations whose answers a test checked in this process (for the coverage test). */
export const checkedOperations = new Set<string>()

/**
 * Checks a 2xx JSON answer against its operation's reference schema; throws naming the
 * operation and ajv's errors. Answers of operations the reference does not list (admin,
 * health, this server's own) and bodiless answers pass.
 */
export const checkResponseShape = (method: string, url: string, status: number, body: unknown): void => {
  if (status < 200 || status > 299 || body === undefined) return
  const operation = operationOf(method, url)
  if (operation === undefined) return
  const validate = validatorOf(operation)
  if (validate === null) return
  checkedOperations.add(operation)
  if (validate(body)) return
  const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`)
  throw new Error(
    `answer of ${operation} does not match reference/responses.json:\n  ${errors.join("\n  ")}\nbody: ${JSON.stringify(body).slice(0, 1500)}`
  )
}
