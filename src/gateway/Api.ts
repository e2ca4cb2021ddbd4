import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Credentials, UserAuthentication, userOrBot } from "../http/Authentication.ts"
import { ApiErrors } from "../model/Errors.ts"

/** Where the WebSocket endpoint is served; `GET /gateway` and `/gateway/bot` hand out its URL. */
export const SOCKET_PATH = "/gateway/socket"

export const GatewayResponse = Schema.Struct({ url: Schema.String })

/** GatewayBotResponse (reference/schemas.md). */
export const GatewayBotResponse = Schema.Struct({
  url: Schema.String,
  shards: Schema.Int,
  session_start_limit: Schema.Struct({
    total: Schema.Int,
    remaining: Schema.Int,
    reset_after: Schema.Int,
    max_concurrency: Schema.Int
  })
})

/** The connection URL's query: checked after the upgrade, so a bad one closes with the protocol's code. */
export const ConnectQuery = {
  v: Schema.optional(Schema.String),
  encoding: Schema.optional(Schema.String),
  compress: Schema.optional(Schema.String)
}

export class GatewayApi extends HttpApiGroup.make("gateway").add(
  HttpApiEndpoint.get("gateway", "/gateway", { success: GatewayResponse, error: ApiErrors }).annotate(Credentials, userOrBot).middleware(UserAuthentication),
  HttpApiEndpoint.get("gatewayBot", "/gateway/bot", { success: GatewayBotResponse, error: ApiErrors }).annotate(Credentials, userOrBot)
    .middleware(UserAuthentication),
  HttpApiEndpoint.get("connect", SOCKET_PATH, { query: ConnectQuery, error: ApiErrors }).annotate(
    OpenApi.Description,
    "The WebSocket gateway (conventions.md, Gateway): upgrade with `?v=1&encoding=json`, optionally `compress=zlib-stream`."
  )
) {}
