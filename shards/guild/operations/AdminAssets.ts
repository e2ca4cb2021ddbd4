import { Effect, Schema } from "effect"
import type { GuildEmoji } from "../../../src/model/Expressions.ts"
import { removeItem } from "../expressions/ExpressionDecisions.ts"
import { EmojiKind, type ExpressionKind, StickerKind } from "../expressions/ExpressionKinds.ts"
import { type Decision, unchanged, write } from "../Definitions.ts"
import type { GuildState } from "../State.ts"

/** Which kind of expression an operator purges. */
export const PurgedKind = Schema.Literals(["emoji", "sticker"])
export type PurgedKind = typeof PurgedKind.Type

const purge = <Item extends GuildEmoji, New, View>(
  kind: ExpressionKind<Item, New, View>,
  state: GuildState,
  id: string
): Decision<string | null> => {
  const found = kind.all(state).get(id)
  return found === undefined ? unchanged(state, null) : removeItem(kind, state, found, found.mediaHash)
}

/**
 * POST /admin/assets/purge, for one emoji or sticker of this guild: removed as
 * its deletion by a member would (audit entry, GUILD_EMOJIS_UPDATE or
 * GUILD_STICKERS_UPDATE), without a member's permission (the operator's ACL
 * was checked at HTTP). Answers the image's hash, for the caller to remove
 * the file once no row points at it; null when the guild has no such item.
 */
export const adminPurgeExpression = write(
  "AdminPurgeExpression",
  { kind: PurgedKind, id: Schema.String },
  Schema.NullOr(Schema.String),
  (state, { kind, id }) => Effect.succeed(kind === "emoji" ? purge(EmojiKind, state, id) : purge(StickerKind, state, id))
)

export const adminAssetsWrites = [adminPurgeExpression] as const
