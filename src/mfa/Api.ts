import { HttpApiGroup } from "effect/http-api"

export class MfaApi extends HttpApiGroup.make("mfa") {}
