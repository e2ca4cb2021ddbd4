import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"

export const SessionsHttp = HttpApiBuilder.group(Api, "sessions", (handlers) => Effect.succeed(handlers))
