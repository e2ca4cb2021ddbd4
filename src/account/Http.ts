import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"

export const AccountHttp = HttpApiBuilder.group(Api, "account", (handlers) => Effect.succeed(handlers))
