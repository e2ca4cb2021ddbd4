import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../http/Api.ts"

export const MfaHttp = HttpApiBuilder.group(Api, "mfa", (handlers) => Effect.succeed(handlers))
