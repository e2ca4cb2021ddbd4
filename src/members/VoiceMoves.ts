import { Effect } from "effect"
import type { MemberPatch } from "../model/Members.ts"
import * as Members from "../../shards/guild/operations/Members.ts"
import { checkVoiceMove } from "../../shards/guild/operations/Voice.ts"
import { VoiceStates } from "../gateway/VoiceStates.ts"
import { Actors, type WriteBy } from "../guilds/Actors.ts"
import { jsonResponse } from "../http/SharedBodies.ts"
import { BadRequest } from "../model/Errors.ts"
import type { GuildId, UserId } from "../model/Ids.ts"

/** Whether a member update reaches their voice state: a move or disconnect (`channel_id`), a server mute or deafen. */
export const touchesVoice = (patch: MemberPatch): boolean =>
  patch.channel_id !== undefined || patch.mute !== undefined || patch.deaf !== undefined

const notInVoice = () => new BadRequest({ code: "USER_NOT_IN_VOICE", message: "Target user is not connected to voice" })

/**
 * A member PATCH that touches voice (the others never come here). A move needs
 * the member in voice: when they are not, the mover hears why the move itself
 * would be refused first (MOVE_MEMBERS, the channel), else USER_NOT_IN_VOICE,
 * and nothing is written. The update is then the usual write (checked,
 * persisted, audited), and its outcome reaches the member's voice state, if any.
 */
export const makeVoicePatches = Effect.gen(function*() {
  const actors = yield* Actors
  const voices = yield* VoiceStates

  return (guildId: GuildId, targetId: UserId, patch: MemberPatch, by: WriteBy) =>
    Effect.gen(function*() {
      if (patch.channel_id !== undefined && (yield* voices.get(guildId, targetId)) === undefined) {
        yield* actors.read(guildId, checkVoiceMove, { targetId, channelId: patch.channel_id, now: Date.now() }, by.actorId)
        return yield* Effect.fail(notInVoice())
      }
      const json = yield* actors.writeJson(guildId, Members.updateMember, { targetId, patch }, by)
      yield* voices.memberPatched(guildId, targetId, patch.channel_id, json)
      return jsonResponse(json)
    })
})
