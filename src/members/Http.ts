import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import type { MemberPatch } from "../../shards/guild/MemberUpdate.ts"
import * as Members from "../../shards/guild/operations/Members.ts"
import { Actors } from "../guilds/Actors.ts"
import { auditReason } from "../guilds/AuditReason.ts"
import { Api } from "../http/Api.ts"
import { CurrentUser } from "../http/Authentication.ts"
import { BadRequest } from "../http/Errors.ts"
import { lean, withBuildContext } from "../http/LeanGroups.ts"
import { imageHash } from "../users/Images.ts"
import type { MemberUpdateRequest } from "./Schemas.ts"

/**
 * The request as the actor takes it: images become their hashes (the bytes
 * are checked here, not stored: see users/Images.ts); fields the guild does
 * not keep (mention_flags, connection_id, timeout_reason) are dropped.
 */
const toPatch = (request: MemberUpdateRequest): Effect.Effect<MemberPatch, BadRequest> => {
  const { avatar, banner, mention_flags: _m, connection_id: _c, timeout_reason: _t, ...rest } = request
  const image = (value: string | null | undefined, path: string): Effect.Effect<string | null | undefined, BadRequest> => {
    if (value == null) return Effect.succeed(value)
    const checked = imageHash(value, path)
    return "hash" in checked
      ? Effect.succeed(checked.hash)
      : Effect.fail(new BadRequest({ code: "INVALID_FORM_BODY", message: "Invalid form body", errors: [checked.problem] }))
  }
  return Effect.gen(function*() {
    const avatarHash = yield* image(avatar, "avatar")
    const bannerHash = yield* image(banner, "banner")
    return {
      ...rest,
      ...(avatarHash === undefined ? {} : { avatar: avatarHash }),
      ...(bannerHash === undefined ? {} : { banner: bannerHash })
    }
  })
}

export const MembersHttp = lean(HttpApiBuilder.group(Api, "members", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const actors = yield* Actors

    const update = (guildId: string, targetId: string | undefined, request: MemberUpdateRequest) =>
      Effect.gen(function*() {
        const me = yield* CurrentUser
        const patch = yield* toPatch(request)
        // The timeout's own reason names it in the audit log when the header does not.
        const reason = (yield* auditReason) ?? request.timeout_reason ?? null
        return yield* actors.writeResponse(guildId, Members.updateMember, { targetId: targetId ?? me.id, patch }, {
          actorId: me.id,
          reason
        })
      })

    // The user actor forgets the guild; Postgres already has no membership if this is lost.
    const forget = (userId: string, guildId: string) =>
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
          actors.read(params.guild_id, Members.searchGuildMembers, { request: payload }, me.id)))
  }))))
