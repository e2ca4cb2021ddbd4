import { OpenApi } from "effect/http-api"
import { Api } from "../../src/http/Api.ts"
import { operationOf, referenceOperations } from "./ResponseShapes.ts"

const METHODS = ["get", "post", "put", "patch", "delete"] as const

/** Every endpoint the HttpApi serves (`METHOD /path/{param}`); the 501 planned routes are not in it. */
export const builtEndpoints = (): ReadonlyArray<string> =>
  Object.entries(OpenApi.fromApi(Api).paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`))

/**
 * The reference operation of a built endpoint: parameter names differ between the two
 * documents, so the path is matched with its parameters filled in.
 */
export const referenceOperationOf = (endpoint: string): string | undefined => {
  const [method = "", path = ""] = endpoint.split(" ")
  return operationOf(method, path.replace(/\{[^}]+\}/g, "1"))
}

/** The built endpoints whose 2xx answer has a body in the reference: the ones the tests must check. */
export const builtOperationsWithBody = (): ReadonlyArray<string> =>
  builtEndpoints().flatMap((endpoint) => {
    const operation = referenceOperationOf(endpoint)
    return operation !== undefined && referenceOperations[operation]?.schema !== undefined ? [operation] : []
  })

/** The built endpoints with a body in the reference that are not among `checked`, sorted. */
export const uncheckedOperations = (checked: ReadonlySet<string>): ReadonlyArray<string> =>
  [...new Set(builtOperationsWithBody())].filter((operation) => !checked.has(operation)).sort()
