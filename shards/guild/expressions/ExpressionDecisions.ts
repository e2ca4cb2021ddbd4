import { Effect } from "effect"
import type { BulkFailure, GuildEmoji } from "../../../src/model/Expressions.ts"
import { BadRequest, type Forbidden, missingPermissions } from "../../../src/model/Errors.ts"
import type { LimitReader } from "../../../src/model/Limits.ts"
import { changesOf, requireMember } from "../Access.ts"
import type { ExpressionKind } from "./ExpressionKinds.ts"
import { DELETED_CREATOR } from "./ExpressionRows.ts"
import type { Decision, GuildEvent } from "../Definitions.ts"
import { has, Permission } from "../../../src/model/Permissions.ts"
import { guildPermissions, type GuildState } from "../State.ts"

// One logic for emojis and stickers; what differs between them is their ExpressionKind.
type AnyKind<Item extends GuildEmoji, New, View> = ExpressionKind<Item, New, View>

/**
 * The instance's limit for the guild (src/platform/Limits.ts: 50, 250 by default
 * with the MORE_ feature), none with the UNLIMITED_ feature.
 */
const limitOf = <Item extends GuildEmoji, New, View>(kind: AnyKind<Item, New, View>, state: GuildState, limits: LimitReader) =>
  state.guild.features.includes(kind.features.unlimited) ? Infinity : limits(kind.limitKey, { guildFeatures: state.guild.features })

const limitProblem = <Item extends GuildEmoji, New, View>(kind: AnyKind<Item, New, View>, state: GuildState, item: New, limits: LimitReader) => {
  const same = [...kind.all(state).values()].filter((other) => kind.countsWith(item, other)).length
  return same < limitOf(kind, state, limits) ? undefined : kind.limitCode(item)
}

const limitReached = (code: string) => new BadRequest({ code, message: "Maximum number reached for this guild" })

/** Creating: CREATE_EXPRESSIONS, or MANAGE_EXPRESSIONS which covers it. */
const requireCreate = (state: GuildState, userId: string): Effect.Effect<void, Forbidden> =>
  Effect.flatMap(requireMember(state, userId), () => {
    const granted = guildPermissions(state, userId)
    return has(granted, Permission.CREATE_EXPRESSIONS) || has(granted, Permission.MANAGE_EXPRESSIONS)
      ? Effect.void
      : Effect.fail(missingPermissions())
  })

/** Editing or deleting: MANAGE_EXPRESSIONS, or the creator holding CREATE_EXPRESSIONS. */
const requireManage = (state: GuildState, userId: string, creatorId: string): Effect.Effect<void, Forbidden> =>
  Effect.flatMap(requireMember(state, userId), () => {
    const granted = guildPermissions(state, userId)
    const mine = creatorId === userId && has(granted, Permission.CREATE_EXPRESSIONS)
    return mine || has(granted, Permission.MANAGE_EXPRESSIONS) ? Effect.void : Effect.fail(missingPermissions())
  })

const withEntry = <V>(map: ReadonlyMap<string, V>, key: string, value: V | undefined): ReadonlyMap<string, V> => {
  const next = new Map(map)
  if (value === undefined) next.delete(key)
  else next.set(key, value)
  return next
}

const announce = <Item extends GuildEmoji, New, View>(kind: AnyKind<Item, New, View>, state: GuildState): GuildEvent => ({
  type: kind.event.type,
  data: { guild_id: state.guild.id, [kind.event.listKey]: [...kind.all(state).values()].map(kind.view) }
})

interface Context {
  readonly actorId: string
  readonly now: number
  readonly limits: LimitReader
}

/** Adds what fits under the limits, in order; the rest fail with the limit's code. */
const addAll = <Item extends GuildEmoji, New extends { readonly name: string }, View>(
  kind: AnyKind<Item, New, View>,
  state: GuildState,
  items: ReadonlyArray<New>,
  { actorId, now, limits }: Context
) => {
  let next = state
  const created: Array<Item> = []
  const failed: Array<BulkFailure> = []
  const creator = state.members.get(actorId)?.user ?? DELETED_CREATOR
  for (const fields of items) {
    const problem = limitProblem(kind, next, fields, limits)
    if (problem !== undefined) {
      failed.push({ name: fields.name, error: problem })
      continue
    }
    const item = kind.make(fields, creator)
    next = kind.withAll(next, withEntry(kind.all(next), item.id, item))
    created.push(item)
  }
  return {
    created,
    failed,
    decision: <Reply>(reply: Reply): Decision<Reply> => ({
      next,
      reply,
      persist: Effect.forEach(created, (item) => kind.insert(item, state.guild.id, actorId, now), { discard: true }),
      audit: created.map((item) => ({
        actionType: kind.actions.create,
        targetId: item.id,
        changes: [{ key: "name", new_value: item.name }]
      })),
      events: created.length === 0 ? [] : [announce(kind, next)]
    })
  }
}

export const createOne = <Item extends GuildEmoji, New extends { readonly name: string }, View>(
  kind: AnyKind<Item, New, View>,
  state: GuildState,
  fields: New,
  context: Context
) =>
  Effect.gen(function*() {
    yield* requireCreate(state, context.actorId)
    const added = addAll(kind, state, [fields], context)
    const [first] = added.created
    if (first === undefined) return yield* limitReached(added.failed[0]?.error ?? kind.limitCode(fields))
    return added.decision(kind.view(first))
  })

export const createMany = <Item extends GuildEmoji, New extends { readonly name: string }, View>(
  kind: AnyKind<Item, New, View>,
  state: GuildState,
  items: ReadonlyArray<New>,
  context: Context
) =>
  Effect.gen(function*() {
    yield* requireCreate(state, context.actorId)
    const added = addAll(kind, state, items, context)
    return added.decision({ success: added.created.map(kind.view), failed: added.failed })
  })

/** The item, once the actor may manage it. */
const findManaged = <Item extends GuildEmoji, New, View>(
  kind: AnyKind<Item, New, View>,
  state: GuildState,
  id: string,
  actorId: string
) =>
  Effect.gen(function*() {
    const found = kind.all(state).get(id)
    if (found === undefined) return yield* Effect.fail(kind.unknown())
    yield* requireManage(state, actorId, found.creator.id)
    return found
  })

export const updateOne = <Item extends GuildEmoji, New, View>(
  kind: AnyKind<Item, New, View>,
  state: GuildState,
  id: string,
  changes: Partial<Item>,
  context: Context
) =>
  Effect.gen(function*() {
    const before = yield* findManaged(kind, state, id, context.actorId)
    const after: Item = { ...before, ...changes }
    const next = kind.withAll(state, withEntry(kind.all(state), id, after))
    return {
      next,
      reply: kind.view(after),
      persist: kind.update(after),
      audit: [{ actionType: kind.actions.update, targetId: id, changes: changesOf(before, changes) }],
      events: [announce(kind, next)]
    }
  })

/** The item `before` removed, audited and announced: whoever may remove it (a member, an operator) was checked. */
export const removeItem = <Item extends GuildEmoji, New, View, Reply>(
  kind: AnyKind<Item, New, View>,
  state: GuildState,
  before: Item,
  reply: Reply
): Decision<Reply> => {
  const next = kind.withAll(state, withEntry(kind.all(state), before.id, undefined))
  return {
    next,
    reply,
    persist: kind.remove(before.id),
    audit: [{ actionType: kind.actions.delete, targetId: before.id, changes: [{ key: "name", old_value: before.name }] }],
    events: [announce(kind, next)]
  }
}

/** The image stays in the media store: another expression may share it. */
export const deleteOne = <Item extends GuildEmoji, New, View>(
  kind: AnyKind<Item, New, View>,
  state: GuildState,
  id: string,
  context: Context
) => Effect.map(findManaged(kind, state, id, context.actorId), (before) => removeItem(kind, state, before, null))

/** Every member sees them, with who made each. */
export const listAll = <Item extends GuildEmoji, New, View>(kind: AnyKind<Item, New, View>, state: GuildState, viewerId: string) =>
  Effect.as(requireMember(state, viewerId), [...kind.all(state).values()].map((item) => ({ ...kind.view(item), user: item.creator })))
