import { describe, expect, it } from "@effect/vitest"
import { Acl, KNOWN_ACLS, ROUTE_ACLS, routeKey } from "../../src/admin/Acls.ts"
import { Api } from "../../src/http/Api.ts"
import { AdminAuthentication } from "../../src/http/Authentication.ts"

/** The `/admin` routes, and any other behind the admin authentication (`/metrics`). */
const adminRoutes = Object.values(Api.groups).flatMap((group) =>
  Object.values(group.endpoints)
    .filter((endpoint) => endpoint.path.startsWith("/admin/") || endpoint.middlewares.has(AdminAuthentication))
    .map((endpoint) => routeKey(endpoint.method, endpoint.path)))

describe("the admin ACL table", () => {
  it("names an ACL for every /admin route the API serves", () => {
    expect(adminRoutes.length).toBeGreaterThan(10)
    expect(adminRoutes).toContain("GET /metrics")
    expect(adminRoutes.filter((route) => !ROUTE_ACLS.has(route))).toEqual([])
  })

  it("lists only ACLs that exist, and never the wildcard as a route's need", () => {
    const needed = [...ROUTE_ACLS.values()]
    expect(needed.filter((acl) => !KNOWN_ACLS.has(acl))).toEqual([])
    expect(needed).not.toContain(Acl.all)
  })
})
