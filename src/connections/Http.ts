import { Effect, Layer, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomBytes } from "node:crypto"
import {
  addConnection,
  connectionProof,
  listConnections,
  removeConnection,
  reorderConnections,
  setConnectionVerified,
  updateConnection
} from "../../shards/user/operations/Connections.ts"
import { UserActors } from "../guilds/UserActors.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import {
  connectionAlreadyExists,
  connectionLimitReached,
  ConnectionType,
  DEFAULT_VISIBILITY,
  MAX_CONNECTIONS
} from "../model/Connections.ts"
import { BadRequest } from "../model/Errors.ts"
import { RateLimitLive } from "../ratelimit/RateLimitLive.ts"
import { Snowflakes } from "../platform/Snowflake.ts"
import { DomainProof, PROOF_LABEL } from "./DomainProof.ts"
import { normalizeIdentifier } from "./Identifiers.ts"
import { ConnectionInitiations, INITIATION_MINUTES, type Initiation } from "./Initiations.ts"
import { SocialProof } from "./SocialProof.ts"

const invalidType = () =>
  new BadRequest({ code: "CONNECTION_INVALID_TYPE", message: "A connection's type is social or domain" })
const invalidInitiation = () =>
  new BadRequest({
    code: "CONNECTION_INITIATION_TOKEN_INVALID",
    message: "The initiation token is unknown, used or expired: start the connection again"
  })
const verificationFailed = (type: ConnectionType) =>
  new BadRequest({
    code: "CONNECTION_VERIFICATION_FAILED",
    message: type === "domain"
      ? "No DNS TXT record of the domain holds the verification token"
      : "The account's profile description does not hold the verification token"
  })

const isConnectionType = Schema.is(ConnectionType)
const typeOf = (type: string) => (isConnectionType(type) ? Effect.succeed(type) : Effect.fail(invalidType()))

/** What the user publishes: public, so only unguessable, not secret. */
const newProof = () => `guildhall-verification=${randomBytes(16).toString("hex")}`

const instructions = (type: ConnectionType, name: string, proof: string) =>
  type === "domain"
    ? `Add a DNS TXT record to ${PROOF_LABEL}.${name} (or to ${name} itself) whose value is ${proof}, ` +
      `then verify within ${INITIATION_MINUTES} minutes. Keep the record: verifying the connection again looks for it.`
    : `Put ${proof} in the description (bio) of ${name}'s profile, then verify within ${INITIATION_MINUTES} minutes. ` +
      "Keep it there: verifying the connection again looks for it."

/**
 * Account connections. The list is the user's actor's (shards/user/operations/
 * Connections.ts), as notes and saved messages are; started verifications are
 * Postgres rows of their own (Initiations.ts). A connection exists only once
 * proven: start hands out the string to publish, verify looks for it (a DNS TXT
 * record, the profile's description) and creates the connection.
 */
const ConnectionsHandlers = HttpApiBuilder.group(Api, "connections", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const userActors = yield* UserActors
    const initiations = yield* ConnectionInitiations
    const domains = yield* DomainProof
    const social = yield* SocialProof
    const snowflakes = yield* Snowflakes

    const published = (type: ConnectionType, name: string, proof: string) =>
      type === "domain" ? domains.published(name, proof) : social.published(name, proof)

    return handlers
      .handle("list", () => Effect.flatMap(CurrentUser, (me) => userActors.readAsResponse(me.id, listConnections, {})))
      .handle("start", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const name = yield* normalizeIdentifier(payload.type, payload.identifier)
          // Told now rather than after the user published the proof; the actor checks again when adding.
          const existing = yield* userActors.read(me.id, listConnections, {})
          if (existing.some((c) => c.type === payload.type && c.name === name)) return yield* connectionAlreadyExists()
          if (existing.length >= MAX_CONNECTIONS) return yield* connectionLimitReached()
          const proof = newProof()
          const initiation: Initiation = {
            type: payload.type,
            name,
            proof,
            visibility_flags: payload.visibility_flags ?? DEFAULT_VISIBILITY
          }
          const token = yield* initiations.start(me.id, initiation)
          return { id: name, type: payload.type, token: proof, initiation_token: token, instructions: instructions(payload.type, name, proof) }
        }))
      .handle("verifyAndCreate", ({ payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const initiation = yield* initiations.find(me.id, payload.initiation_token)
          if (initiation === undefined) return yield* invalidInitiation()
          // A failed check leaves the token usable: the record may not have spread yet.
          if (!(yield* published(initiation.type, initiation.name, initiation.proof))) return yield* verificationFailed(initiation.type)
          if (!(yield* initiations.consume(me.id, payload.initiation_token))) return yield* invalidInitiation()
          return yield* userActors.write(me.id, addConnection, {
            id: snowflakes.next(),
            type: initiation.type,
            name: initiation.name,
            proof: initiation.proof,
            visibilityFlags: payload.visibility_flags ?? initiation.visibility_flags
          }, { actorId: me.id })
        }))
      .handle("reverify", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const type = yield* typeOf(params.type)
          const { connection, proof } = yield* userActors.read(me.id, connectionProof, { type, id: params.connection_id })
          const verified = yield* published(type, connection.name, proof)
          return yield* userActors.write(me.id, setConnectionVerified, { type, id: params.connection_id, verified }, { actorId: me.id })
        }))
      .handle("socialAuthorize", ({ payload }) =>
        Effect.map(normalizeIdentifier("social", payload.handle), (handle) => ({ authorize_url: social.profileUrl(handle) })))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const type = yield* typeOf(params.type)
          yield* userActors.write(me.id, updateConnection, {
            type,
            id: params.connection_id,
            sortOrder: payload.sort_order ?? null,
            visibilityFlags: payload.visibility_flags ?? null
          }, { actorId: me.id })
        }))
      .handle("reorder", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) =>
          Effect.asVoid(userActors.write(me.id, reorderConnections, { ids: payload.connection_ids }, { actorId: me.id }))))
      .handle("remove", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const type = yield* typeOf(params.type)
          yield* userActors.write(me.id, removeConnection, { type, id: params.connection_id }, { actorId: me.id })
        }))
  })))

/** The connection routes, with the proof lookups, the started verifications and their rate limiting. */
export const ConnectionsHttp = perRequestMiddlewaresOnly(ConnectionsHandlers).pipe(
  Layer.provide([ConnectionInitiations.layer, DomainProof.layer, SocialProof.layer, RateLimitLive])
)
