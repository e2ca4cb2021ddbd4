import { HttpApiGroup } from "effect/http-api"
import { userOrBot, UserAuthentication } from "../http/Authentication.ts"
import { emojiEndpoints, stickerEndpoints } from "./Endpoints.ts"
import { GuildPath } from "../http/Paths.ts"


/** A guild's custom emojis and stickers. */
export class ExpressionsApi extends HttpApiGroup.make("expressions").add(
  ...emojiEndpoints("/guilds/:guild_id/emojis", GuildPath, userOrBot),
  ...stickerEndpoints("/guilds/:guild_id/stickers", GuildPath, userOrBot)
).middleware(UserAuthentication) {}
