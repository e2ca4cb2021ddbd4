import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { UserEvents } from "../../shards/UserEvents.ts"
import { BadRequest, type Forbidden, missingPermissions, type NotFound, unknown } from "../model/Errors.ts"
import { RelationshipResponse, RelationshipType } from "./Api.ts"
import { RelationshipsRepo } from "./Repo.ts"

/** Friends plus outgoing requests one user may have (the reference platform's friend list size). */
export const MAX_FRIENDS = 1000

const refused = (code: string, message: string) => new BadRequest({ code, message })

const { friend, blocked, incoming, outgoing } = RelationshipType

// The JSON codec the HTTP routes answer with, so an event's row is the one GET /users/@me/relationships lists.
const encodeView = Schema.encodeEffect(Schema.toCodecJson(RelationshipResponse))

/** Each side's row (as GET /users/@me/relationships shows it) before and after a change. */
interface Sides {
  readonly before: ReadonlyArray<RelationshipResponse | undefined>
  readonly after: ReadonlyArray<RelationshipResponse | undefined>
}

/**
 * Friends, friend requests and blocks. Each change takes both users' locks and
 * writes both sides in one transaction.
 *
 * - Asking someone who already asked you accepts their request.
 * - Ignoring (deleting) an incoming request, or blocking its sender, leaves the
 *   sender's outgoing request as it was: they are not told.
 * - Blocking ends a friendship and withdraws your own request; a user you block
 *   or who blocked you cannot be asked.
 *
 * After the commit each user whose row changed type is told: RELATIONSHIP_ADD
 * with the new row, or RELATIONSHIP_REMOVE with the row as it was. So a silent
 * change (an ignored request, a block) is not told to the other side either.
 */
export class Relationships extends Context.Service<Relationships, {
  readonly list: (me: string) => Effect.Effect<ReadonlyArray<RelationshipResponse>>
  /** A friend request; `force` (staff only) makes the friendship at once. */
  readonly request: (me: string, target: string, force: boolean) => Effect.Effect<RelationshipResponse, BadRequest | Forbidden | NotFound>
  readonly requestByTag: (
    me: string,
    username: string,
    discriminator: string | number | undefined
  ) => Effect.Effect<RelationshipResponse, BadRequest | Forbidden | NotFound>
  /** Accepts `target`'s request; accepting a friend again changes nothing. */
  readonly accept: (me: string, target: string) => Effect.Effect<RelationshipResponse, BadRequest | NotFound>
  readonly block: (me: string, target: string) => Effect.Effect<RelationshipResponse, BadRequest | NotFound>
  /** Unfriends, withdraws or ignores a request, or unblocks, whichever `target` is to `me`. */
  readonly remove: (me: string, target: string) => Effect.Effect<void, NotFound>
  readonly setNickname: (me: string, target: string, nickname: string | null) => Effect.Effect<RelationshipResponse, BadRequest>
}>()("guildhall/Relationships") {
  static readonly layer = Layer.effect(
    Relationships,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* RelationshipsRepo
      const userEvents = yield* UserEvents

      const bothSides = (a: string, b: string) => Effect.all([repo.view(a, b), repo.view(b, a)])

      const announce = (users: ReadonlyArray<string>, { before, after }: Sides) =>
        Effect.forEach(users, (user, i) => {
          const was = before[i]
          const now = after[i]
          if (was?.type === now?.type) return Effect.void
          const [type, view] = now === undefined ? ["RELATIONSHIP_REMOVE", was] : ["RELATIONSHIP_ADD", now]
          if (view === undefined) return Effect.void
          return encodeView(view).pipe(
            Effect.orDie,
            Effect.flatMap((data) => userEvents.publish([user], { type, data: JSON.stringify(data) }))
          )
        }, { discard: true })

      /** Runs `body` holding both users' locks, then tells each user whose side changed. */
      const inTransaction = <A, E>(a: string, b: string, body: Effect.Effect<A, E>) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* repo.lock(a, b)
          const before = yield* bothSides(a, b)
          const result = yield* body
          return { result, sides: { before, after: yield* bothSides(a, b) } }
        })).pipe(
          Effect.catchTag("SqlError", Effect.die),
          Effect.flatMap(({ result, sides }) => Effect.as(announce([a, b], sides), result))
        )

      /** The row as written; it exists, since the caller just wrote it inside the transaction. */
      const viewOf = (me: string, target: string) =>
        Effect.flatMap(repo.view(me, target), (view) => (view === undefined ? Effect.die(new Error("relationship vanished")) : Effect.succeed(view)))

      /** Fails when becoming a friend would take `user` past the limit (friends and outgoing requests count already). */
      const roomFor = (user: string, current: RelationshipType | undefined) =>
        Effect.gen(function*() {
          if (current === friend || current === outgoing) return
          if ((yield* repo.friendsAndRequests(user)) >= MAX_FRIENDS) {
            return yield* refused("MAX_FRIENDS", `Maximum number of friends reached (${MAX_FRIENDS})`)
          }
        })

      const befriend = (me: string, target: string, mine: RelationshipType | undefined, theirs: RelationshipType | undefined) =>
        Effect.gen(function*() {
          yield* roomFor(me, mine)
          yield* roomFor(target, theirs)
          yield* repo.set(me, target, friend)
          yield* repo.set(target, me, friend)
          return yield* viewOf(me, target)
        })

      const request = Effect.fn("Relationships.request")(function*(me: string, target: string, force: boolean) {
        if (me === target) return yield* refused("CANNOT_SEND_FRIEND_REQUEST_TO_SELF", "You cannot send a friend request to yourself")
        return yield* inTransaction(me, target, Effect.gen(function*() {
          const sender = yield* repo.party(me)
          const recipient = yield* repo.party(target)
          if (sender === undefined || recipient === undefined) return yield* unknown("USER")
          if (sender.bot) return yield* refused("BOTS_CANNOT_SEND_FRIEND_REQUESTS", "Bots cannot send friend requests")
          if (force && !sender.staff) return yield* missingPermissions()
          const mine = yield* repo.typeOf(me, target)
          const theirs = yield* repo.typeOf(target, me)
          if (mine === blocked) {
            return yield* refused("CANNOT_SEND_FRIEND_REQUEST_TO_BLOCKED_USER", "Unblock this user before sending a friend request")
          }
          if (theirs === blocked) return yield* refused("FRIEND_REQUEST_BLOCKED", "This user is not accepting friend requests")
          if (mine === friend) return yield* refused("ALREADY_FRIENDS", "You are already friends with this user")
          if (mine === incoming || theirs === outgoing || force) return yield* befriend(me, target, mine, theirs)
          if (mine === outgoing) return yield* viewOf(me, target)
          if (!recipient.reachable || recipient.bot) {
            return yield* refused("FRIEND_REQUEST_BLOCKED", "This user is not accepting friend requests")
          }
          yield* roomFor(me, mine)
          yield* repo.set(me, target, outgoing)
          yield* repo.set(target, me, incoming)
          return yield* viewOf(me, target)
        }))
      })

      const requestByTag = Effect.fn("Relationships.requestByTag")(function*(
        me: string,
        username: string,
        discriminator: string | number | undefined
      ) {
        if (discriminator === undefined) {
          return yield* refused("DISCRIMINATOR_REQUIRED", "A username needs its discriminator, as in name#0001")
        }
        const target = yield* repo.findByTag(username, String(discriminator).padStart(4, "0"))
        if (target === undefined) return yield* refused("NO_USERS_WITH_SERVICETAG_EXIST", "No user has this username and discriminator")
        return yield* request(me, target, false)
      })

      const accept = Effect.fn("Relationships.accept")((me: string, target: string) =>
        inTransaction(me, target, Effect.gen(function*() {
          const mine = yield* repo.typeOf(me, target)
          if (mine === friend) return yield* viewOf(me, target)
          if (mine !== incoming) return yield* unknown("USER")
          return yield* befriend(me, target, mine, yield* repo.typeOf(target, me))
        })))

      const block = Effect.fn("Relationships.block")(function*(me: string, target: string) {
        if (me === target) return yield* refused("BAD_REQUEST", "You cannot block yourself")
        return yield* inTransaction(me, target, Effect.gen(function*() {
          if ((yield* repo.party(target)) === undefined) return yield* unknown("USER")
          yield* repo.set(me, target, blocked)
          // Their outgoing request (and their own block) stay: a block is not announced.
          yield* repo.drop(target, me, [friend, incoming])
          return yield* viewOf(me, target)
        }))
      })

      const remove = Effect.fn("Relationships.remove")((me: string, target: string) =>
        inTransaction(me, target, Effect.gen(function*() {
          const mine = yield* repo.typeOf(me, target)
          if (mine === undefined) return yield* unknown("USER")
          yield* repo.drop(me, target, [mine])
          if (mine === friend) yield* repo.drop(target, me, [friend])
          if (mine === outgoing) yield* repo.drop(target, me, [incoming])
        })))

      const setNickname = Effect.fn("Relationships.setNickname")(function*(me: string, target: string, nickname: string | null) {
        const trimmed = nickname?.trim() ?? ""
        const updated = yield* repo.setNickname(me, target, trimmed === "" ? null : trimmed)
        if (!updated) return yield* refused("NOT_FRIENDS_WITH_USER", "Only friends have nicknames")
        return yield* viewOf(me, target)
      })

      return Relationships.of({
        list: Effect.fn("Relationships.list")((me) => repo.list(me)),
        request,
        requestByTag,
        accept,
        block,
        remove,
        setNickname
      })
    })
  )
}
