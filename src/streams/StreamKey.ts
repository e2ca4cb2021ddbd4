import { BadRequest } from "../model/Errors.ts"

/**
 * A stream's key as the production clients make it: `<guild id>:<channel id>:<connection id>`
 * in a guild's voice channel, `dm:<channel id>:<connection id>` in a call.
 */
export type StreamKey =
  | { readonly scope: "guild"; readonly guildId: string; readonly channelId: string; readonly connectionId: string }
  | { readonly scope: "dm"; readonly channelId: string; readonly connectionId: string }

const SNOWFLAKE = /^[1-9][0-9]{0,19}$/
const CONNECTION = /^[A-Za-z0-9_-]{1,128}$/

export const invalidStreamKey = () => new BadRequest({ code: "INVALID_STREAM_KEY_FORMAT", message: "Invalid stream key format" })

export const parseStreamKey = (text: string): StreamKey | undefined => {
  const parts = text.split(":")
  if (parts.length !== 3) return undefined
  const [scope = "", channelId = "", connectionId = ""] = parts
  if (!SNOWFLAKE.test(channelId) || !CONNECTION.test(connectionId)) return undefined
  if (scope === "dm") return { scope: "dm", channelId, connectionId }
  return SNOWFLAKE.test(scope) ? { scope: "guild", guildId: scope, channelId, connectionId } : undefined
}
