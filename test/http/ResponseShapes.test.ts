import { assert, describe, it } from "@effect/vitest"
import { builtEndpoints, builtOperationsWithBody, referenceOperationOf, uncheckedOperations } from "../support/BuiltOperations.ts"
import { checkAgainstReference, operationOf } from "../support/ResponseShapes.ts"

/**
 * Every 2xx JSON answer the tests receive through test/support is checked against
 * reference/responses.json (ResponseShapes.ts); a full run also names the built
 * endpoints no test checked (ResponseShapesReporter.ts). These tests keep the checker honest.
 */

/**
 * Built endpoints the reference does not describe, so nothing to check them against:
 * part B's admin API, part A's SMS MFA steps and phone routes, and this server's own
 * routes (health, readiness, media, attachment and archive files, the gateway's socket).
 */
const outsideTheReference = [
  /^\w+ \/admin\//,
  /^\w+ \/_(health|ready)$/,
  /^GET \/metrics$/,
  /^GET \/(media|attachments|archives)\//,
  /^GET \/gateway(\/socket)?$/,
  /\/mfa\/sms\b/,
  /^\w+ \/users\/@me\/phone$/,
  /^POST \/users\/@me\/messages\/delete\/test$/,
  /^PATCH \/guilds\/\{guild_id\}\/(detached-banner|text-channel-flexible-names)$/,
  // Neutral names of part C the reference (the production service's own names) does not use.
  /^\w+ \/gif[ab]\//,
  /^POST \/webhooks\/\{webhook_id\}\/\{token\}\/errors$/
]

const user = { id: "1", username: "a", discriminator: "0001", global_name: null, avatar: null, avatar_color: null, flags: 0 }

describe("answers checked against the production shapes", () => {
  it("finds a request's operation with or without /v1, preferring literal segments", () => {
    assert.strictEqual(operationOf("GET", "/v1/users/@me"), "GET /users/@me")
    assert.strictEqual(operationOf("get", "/users/123?with_mutual_guilds=true"), "GET /users/{user_id}")
    assert.strictEqual(operationOf("GET", "/guilds/1/members/@me"), "GET /guilds/{guild_id}/members/@me")
    assert.strictEqual(operationOf("GET", "/nowhere"), undefined)
  })

  it("refuses what the production service never sends: null for an optional field, a required field left out", () => {
    assert.strictEqual(checkAgainstReference("GET", "/users/1", 200, user), "GET /users/{user_id}")
    checkAgainstReference("GET", "/users/1", 200, { ...user, mention_flags: 1 })
    assert.throws(
      () => checkAgainstReference("GET", "/users/1", 200, { ...user, mention_flags: null }),
      /GET \/users\/\{user_id\}.*\n.*mention_flags/
    )
    assert.throws(() => checkAgainstReference("POST", "/v1/auth/login", 200, { token: "t", user_id: "1" }), /POST \/auth\/login/)
    // The status too: a body where the reference answers 204, or none where it answers one.
    assert.throws(() => checkAgainstReference("POST", "/auth/logout", 200, {}), /status 200, the reference answers 204/)
    assert.throws(() => checkAgainstReference("GET", "/users/@me", 204, undefined), /status 204, the reference answers 200/)
    checkAgainstReference("POST", "/auth/logout", 204, undefined)
    // Errors are not the reference's business.
    checkAgainstReference("GET", "/users/1", 404, { code: "UNKNOWN_USER" })
  })

  it("every built endpoint is described by the reference, or is one the reference leaves out", () => {
    const undescribed = builtEndpoints().filter((endpoint) =>
      referenceOperationOf(endpoint) === undefined && !outsideTheReference.some((pattern) => pattern.test(endpoint)))
    assert.deepStrictEqual(undescribed, [])
  })

  it("the full run's report names exactly the built endpoints with a body that no test checked", () => {
    const everyOne = new Set(builtOperationsWithBody())
    assert.isAtLeast(everyOne.size, 100)
    assert.deepStrictEqual(uncheckedOperations(everyOne), [])
    const allButTwo = new Set([...everyOne].filter((o) => o !== "GET /users/@me" && o !== "POST /auth/login"))
    assert.deepStrictEqual(uncheckedOperations(allButTwo), ["GET /users/@me", "POST /auth/login"])
    // Endpoints answering 204 in the reference have no body to check, and are not asked for.
    assert.isFalse(everyOne.has("POST /auth/logout"))
  })
})
