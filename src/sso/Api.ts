import { HttpApiGroup } from "effect/http-api"

export class SsoApi extends HttpApiGroup.make("sso") {}
