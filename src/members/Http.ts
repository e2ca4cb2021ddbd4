import { Effect, Result } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import type { MemberPatch } from "../model/Members.ts"
import * as Members from "../../shards/guild/operations/Members.ts"
import { Actors } from "../guilds/Actors.ts"
import { auditReason } from "../guilds/AuditReason.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { BadRequest } from "../model/Errors.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../http/GroupContexts.ts"
import { imageHash } from "../users/Images.ts"
import type { MemberUpdateRequest } from "../model/Members.ts"
import { makeVoicePatches, touchesVoice } from "./VoiceMoves.ts"
import type { GuildId, UserId } from "../model/Ids.ts"

/**
 * The request as the actor takes it: images become their hashes (the bytes
 * are checked here, not stored: see users/Images.ts); fields the guild does
 * not keep (mention_flags, connection_id, timeout_reason) are dropped.
 */
const toPatch = (request: MemberUpdateRequest): Result.Result<MemberPatch, BadRequest> => {
  const { avatar, banner, mention_flags: _m, connection_id: _c, timeout_reason: _t, ...rest } = request
  const avatarHash = hashOf(avatar, "avatar")
  if (Result.isFailure(avatarHash)) return Result.fail(avatarHash.failure)
  const bannerHash = hashOf(banner, "banner")
  if (Result.isFailure(bannerHash)) return Result.fail(bannerHash.failure)
  return Result.succeed({
    ...rest,
    ...(avatarHash.success === undefined ? {} : { avatar: avatarHash.success }),
    ...(bannerHash.success === undefined ? {} : { banner: bannerHash.success })
  })
}

/** An image field as its hash (null clears it, undefined leaves it). */
const hashOf = (value: string | null | undefined, path: string): Result.Result<string | null | undefined, BadRequest> => {
  if (value == null) return Result.succeed(value)
  const checked = imageHash(value, path)
  return "hash" in checked
    ? Result.succeed(checked.hash)
    : Result.fail(new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: [checked.problem] }))
}

export const MembersHttp = perRequestMiddlewaresOnly(HttpApiBuilder.group(Api, "members", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors
    const voicePatch = yield* makeVoicePatches

    // One of a guild's most frequent writes: no generator on its way.
    const update = (guildId: GuildId, targetId: UserId | undefined, request: MemberUpdateRequest) => {
      const patch = toPatch(request)
      if (Result.isFailure(patch)) return Effect.fail(patch.failure)
      return Effect.flatMap(Effect.all([CurrentUser, auditReason]), ([me, header]) => {
        // The timeout's own reason names it in the audit log when the header does not.
        const by = { actorId: me.id, reason: header ?? request.timeout_reason ?? null }
        // A move, disconnect, mute or deafen reaches the member's voice state too (VoiceMoves.ts).
        return touchesVoice(patch.success)
          ? voicePatch(guildId, targetId ?? me.id, patch.success, by)
          : actors.writeAsResponse(guildId, Members.updateMember, { targetId: targetId ?? me.id, patch: patch.success }, by)
      })
    }

    // The user actor forgets the guild; Postgres already has no membership if this is lost.
    const forget = (userId: UserId, guildId: GuildId) =>
      actors.user(userId).Left({ guildId }).pipe(Effect.timeout("2 seconds"), Effect.ignore)

    return handlers
      .handle("updateMine", ({ params, payload }) => update(params.guild_id, undefined, payload))
      .handle("update", ({ params, payload }) => update(params.guild_id, params.user_id, payload))
      .handle("kick", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          const reason = yield* auditReason
          yield* actors.write(params.guild_id, Members.kickMember, { targetId: params.user_id }, { actorId: me.id, reason })
          yield* forget(params.user_id, params.guild_id)
        }))
      .handle("leave", ({ params }) =>
        Effect.gen(function*() {
          const me = yield* CurrentUser
          yield* actors.write(params.guild_id, Members.leaveGuild, {}, { actorId: me.id })
          yield* forget(me.id, params.guild_id)
        }))
      .handle("search", ({ params, payload }) =>
        Effect.flatMap(CurrentUser, (me) =>
          actors.readAsResponse(params.guild_id, Members.searchGuildMembers, { request: payload }, me.id)))
  }))))
