import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"

export const SsoHttp = HttpApiBuilder.group(Api, "sso", (handlers) => Effect.succeed(handlers))
