import { Effect } from "effect"
import { SignJWT } from "jose"
import { mayUse, type VoiceCaller } from "../model/RtcRegions.ts"
import type { VoiceCatalog, VoiceServerCredentials } from "../platform/VoiceCatalog.ts"

/** How long a join token admits its holder to the room: long enough to connect, and to reconnect after a short drop. */
const TOKEN_SECONDS = 6 * 60 * 60
/** Clocks of the media server and this process may differ by this much. */
const CLOCK_LEEWAY_SECONDS = 10

/** The media room of a guild's voice channel: every member there joins the same one. */
export const roomName = (guildId: string, channelId: string): string => `guild_${guildId}_channel_${channelId}`

/**
 * The media server for a join: in the channel's pinned region if it has one the
 * caller may use, else the default region, else any region they may use (this
 * server does not know where the client is, so "nearest" is the operator's
 * default). Within a region, one of the active servers the caller may use, at
 * random to spread the rooms. Undefined when no configured server fits.
 */
export const pickServer = (catalog: typeof VoiceCatalog.Service, pinned: string | null, caller: VoiceCaller) =>
  Effect.gen(function*() {
    const regions = (yield* catalog.regions).filter((r) => mayUse(r, caller))
    const order = [
      ...regions.filter((r) => r.id === pinned),
      ...regions.filter((r) => r.id !== pinned && r.is_default),
      ...regions.filter((r) => r.id !== pinned && !r.is_default)
    ]
    for (const region of order) {
      const servers = (yield* catalog.activeCredentials(region.id)).filter((s) => mayUse(s, caller))
      if (servers.length > 0) return servers[Math.floor(Math.random() * servers.length)]
    }
    return undefined
  })

export interface JoinGrant {
  readonly guildId: string
  readonly channelId: string
  readonly userId: string
  readonly name: string
  /** SPEAK in the channel: may publish the microphone. */
  readonly speak: boolean
  /** STREAM in the channel: may publish camera and screen too (with SPEAK). */
  readonly stream: boolean
}

/**
 * A join token in the form LiveKit media servers accept (an access token): a
 * JWT signed HS256 with the server's API secret, issued by its API key, naming
 * the user (`sub`, the identity) and the room, granting publication only as
 * the member's permissions do.
 */
export const joinToken = (server: VoiceServerCredentials, grant: JoinGrant, nowMillis: number): Effect.Effect<string> => {
  const now = Math.floor(nowMillis / 1000)
  const sources = grant.speak ? ["microphone", ...(grant.stream ? ["camera", "screen_share", "screen_share_audio"] : [])] : []
  return Effect.promise(() =>
    new SignJWT({
      name: grant.name,
      video: {
        room: roomName(grant.guildId, grant.channelId),
        roomJoin: true,
        canPublish: grant.speak,
        canSubscribe: true,
        canPublishData: true,
        canPublishSources: sources
      }
    })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(server.api_key)
      .setSubject(grant.userId)
      .setJti(grant.userId)
      .setNotBefore(now - CLOCK_LEEWAY_SECONDS)
      .setExpirationTime(now + TOKEN_SECONDS)
      .sign(new TextEncoder().encode(server.api_secret))
  )
}
