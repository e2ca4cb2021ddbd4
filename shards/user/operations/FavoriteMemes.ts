import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { invalidField } from "../../../src/model/Errors.ts"
import {
  FavoriteMemeResponse,
  maxFavoriteMemes,
  unknownFavoriteMeme
} from "../../../src/model/FavoriteMemes.ts"
import { read, toSelf, write } from "../Definitions.ts"
import { byId } from "../Lists.ts"
import type { UserState } from "../State.ts"

/**
 * The user's saved media ("memes"). The caller fetches and stores the bytes
 * and hands in the finished entry; the actor decides whether it may be kept
 * (the per-user limit, the same bytes saved twice), so two saves racing each
 * other cannot both pass the limit. The user's sessions hear
 * FAVORITE_MEME_CREATE, _UPDATE and _DELETE, as production sends them.
 */

const withMemes = (state: UserState, memes: ReadonlyMap<string, FavoriteMemeResponse>): UserState => ({ ...state, memes })

/** GET /users/@me/memes: newest first. */
export const listMemes = read("ListFavoriteMemes", {}, Schema.Array(FavoriteMemeResponse), (state) =>
  Effect.sync(() => [...state.memes.values()].sort((a, b) => byId(b.id, a.id))))

/** How many the user keeps: checked before a file is fetched, and again by the save. */
export const countMemes = read("CountFavoriteMemes", {}, Schema.Int, (state) => Effect.succeed(state.memes.size))

/** GET /users/@me/memes/{id}: someone else's id reads exactly like an unknown one. */
export const getMeme = read("GetFavoriteMeme", { id: Schema.String }, FavoriteMemeResponse, (state, { id }) => {
  const meme = state.memes.get(id)
  return meme === undefined ? Effect.fail(unknownFavoriteMeme()) : Effect.succeed(meme)
})

/**
 * POST /users/@me/memes and POST /channels/{id}/messages/{id}/memes, once the
 * media is stored: `meme` is complete, its id the caller's. `limit` is the
 * deployment's (MEMES_MAX_PER_USER).
 */
export const saveMeme = write(
  "SaveFavoriteMeme",
  { meme: FavoriteMemeResponse, limit: Schema.Int },
  FavoriteMemeResponse,
  (state, { meme, limit }, context) => {
    if (state.memes.size >= limit) return Effect.fail(maxFavoriteMemes(limit))
    const hash = meme.content_hash
    if (hash !== null && [...state.memes.values()].some((m) => m.content_hash === hash)) {
      return Effect.fail(invalidField("media", "MEDIA_ALREADY_IN_FAVORITE_MEMES", "This media is already in your saved media"))
    }
    return Effect.succeed({
      next: withMemes(state, new Map(state.memes).set(meme.id, meme)),
      reply: meme,
      persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.asVoid(sql`
          INSERT INTO favorite_memes (id, user_id, name, alt_text, tags, attachment_id, filename, content_type, content_hash, size,
            width, height, duration, url, is_gifv, gifa_slug_id, gifb_slug, created_at)
          VALUES (${meme.id}, ${context.userId}, ${meme.name}, ${meme.alt_text}, ${[...meme.tags]}::text[], ${meme.attachment_id},
            ${meme.filename}, ${meme.content_type}, ${meme.content_hash}, ${meme.size}, ${meme.width}, ${meme.height},
            ${meme.duration}, ${meme.url}, ${meme.is_gifv}, ${meme.gifa_slug_id}, ${meme.gifb_slug},
            ${new Date(context.now).toISOString()})`)),
      events: [toSelf(context, "FAVORITE_MEME_CREATE", meme)]
    })
  }
)

/** PATCH /users/@me/memes/{id}: fields already cleaned by the caller; an absent one stays as it is. */
export const updateMeme = write(
  "UpdateFavoriteMeme",
  {
    id: Schema.String,
    name: Schema.optional(Schema.String),
    altText: Schema.optional(Schema.NullOr(Schema.String)),
    tags: Schema.optional(Schema.Array(Schema.String))
  },
  FavoriteMemeResponse,
  (state, { id, name, altText, tags }, context) => {
    const existing = state.memes.get(id)
    if (existing === undefined) return Effect.fail(unknownFavoriteMeme())
    const meme: FavoriteMemeResponse = {
      ...existing,
      name: name ?? existing.name,
      alt_text: altText === undefined ? existing.alt_text : altText,
      tags: tags ?? existing.tags
    }
    return Effect.succeed({
      next: withMemes(state, new Map(state.memes).set(id, meme)),
      reply: meme,
      persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.asVoid(sql`
          UPDATE favorite_memes SET name = ${meme.name}, alt_text = ${meme.alt_text}, tags = ${[...meme.tags]}::text[]
          WHERE user_id = ${context.userId} AND id = ${id}`)),
      events: [toSelf(context, "FAVORITE_MEME_UPDATE", meme)]
    })
  }
)

/**
 * DELETE /users/@me/memes/{id}. The stored bytes stay: the media store is
 * content-addressed, so a message attachment, an expression or another
 * user's meme may show the same object, and it never deletes on a row's
 * removal (MediaStore.ts); an operator's purge removes unreferenced objects.
 */
export const deleteMeme = write("DeleteFavoriteMeme", { id: Schema.String }, Schema.Null, (state, { id }, context) => {
  if (!state.memes.has(id)) return Effect.fail(unknownFavoriteMeme())
  const memes = new Map(state.memes)
  memes.delete(id)
  return Effect.succeed({
    next: withMemes(state, memes),
    reply: null,
    persist: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.asVoid(sql`DELETE FROM favorite_memes WHERE user_id = ${context.userId} AND id = ${id}`)),
    events: [toSelf(context, "FAVORITE_MEME_DELETE", { meme_id: id })]
  })
})

export const memesReads = [listMemes, countMemes, getMeme] as const
export const memesWrites = [saveMeme, updateMeme, deleteMeme] as const
