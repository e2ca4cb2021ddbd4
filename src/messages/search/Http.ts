import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../http/Api.ts"
import { CurrentUser } from "../../http/Authentication.ts"
import { perRequestMiddlewaresOnly, withBuildContext } from "../../http/GroupContexts.ts"
import { DEFAULT_HITS_PER_PAGE, MAX_SEARCH_OFFSET } from "./Api.ts"
import { SearchRepo } from "./Repo.ts"
import { MessageVisibility } from "../Visibility.ts"

const SearchHandlers = HttpApiBuilder.group(Api, "messageSearch", (handlers) =>
  withBuildContext(Effect.gen(function*() {
    const visibility = yield* MessageVisibility
    const repo = yield* SearchRepo

    return handlers.handle("search", ({ payload }) =>
      Effect.gen(function*() {
        const me = yield* CurrentUser
        const hitsPerPage = payload.hits_per_page ?? DEFAULT_HITS_PER_PAGE
        const page = payload.page ?? 1
        const offset = Math.min((page - 1) * hitsPerPage, MAX_SEARCH_OFFSET)
        // Only channels the caller may read now (VIEW_CHANNEL and READ_MESSAGE_HISTORY), as their guilds' actors say.
        const readable = yield* visibility.readable(me.id, payload.context_guild_id === undefined ? undefined : [payload.context_guild_id])
        const channels = readable.flatMap((g) => g.channels)
        const found = yield* repo.search(payload, channels.map((c) => c.id), { offset, limit: hitsPerPage })
        const hitChannels = new Set(found.messages.map((m) => m.channel_id))
        return {
          messages: found.messages,
          channels: channels.filter((c) => hitChannels.has(c.id)),
          total: found.total,
          hits_per_page: hitsPerPage,
          page
        }
      }))
  })))

export const SearchHttp = perRequestMiddlewaresOnly(SearchHandlers).pipe(Layer.provide([SearchRepo.layer, MessageVisibility.layer]))
