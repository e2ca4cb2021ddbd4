import { HttpApiGroup } from "effect/http-api"

export class SessionsApi extends HttpApiGroup.make("sessions") {}
