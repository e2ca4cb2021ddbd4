import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { plannedRoutes } from "./PlannedRoutes.ts"

const notImplemented = HttpServerResponse.jsonUnsafe(
  { code: "NOT_IMPLEMENTED", message: "This endpoint is not built yet" },
  { status: 501 }
)

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
const isMethod = (m: string): m is Method => m === "GET" || m === "POST" || m === "PUT" || m === "PATCH" || m === "DELETE"
const isPath = (p: string): p is `/${string}` => p.startsWith("/")

/** The spec's endpoints that have no handler yet: an honest 501, not a 404 and never a fake success. */
export const PlannedRoutesLayer = HttpRouter.use((router) =>
  Effect.forEach(plannedRoutes, ([method, path]) => {
    const routerPath = path.replace(/\{([^}]+)\}/g, ":$1")
    return isMethod(method) && isPath(routerPath) ? router.add(method, routerPath, notImplemented) : Effect.void
  }, { discard: true })
)
