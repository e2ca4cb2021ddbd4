import { HttpApiGroup } from "effect/http-api"

export class AccountApi extends HttpApiGroup.make("account") {}
