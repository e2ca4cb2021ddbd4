import { HttpApiGroup } from "effect/http-api"
import { UserAuthentication } from "../http/Authentication.ts"
import { Snowflake } from "../model/Common.ts"
import { emojiEndpoints, stickerEndpoints } from "./Endpoints.ts"

const guildPath = { guild_id: Snowflake }

/** A guild's custom emojis and stickers. */
export class ExpressionsApi extends HttpApiGroup.make("expressions").add(
  ...emojiEndpoints("/guilds/:guild_id/emojis", guildPath),
  ...stickerEndpoints("/guilds/:guild_id/stickers", guildPath)
).middleware(UserAuthentication) {}
