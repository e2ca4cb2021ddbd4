import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { TestApi } from "./Api.ts"

/**
 * Gives `userId` exactly `acls` (staff: any ACL) the way an operator does,
 * through POST /admin/users/set-acls with the test API's operator key, so the
 * user's actor and sessions see the change as they would in production.
 */
export const setAcls = (userId: string, acls: ReadonlyArray<string> = ["admin:authenticate"]) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("POST", "/admin/users/set-acls", {
      token: `Admin ${api.adminKey}`,
      body: { user_id: userId, acls }
    })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body
  })
