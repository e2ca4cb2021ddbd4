import { Effect } from "effect"
import { CurrentUser } from "../http/Authentication.ts"
import { Forbidden } from "../model/Errors.ts"

const botsRefused = () =>
  new Forbidden({ code: "BOT_USER_AUTH_ENDPOINT_ACCESS_DENIED", message: "Bots cannot use this endpoint" })

/** The caller, when a person: applications are managed and authorized by people, not by bots. */
export const person = Effect.flatMap(CurrentUser, (me) => me.applicationId === undefined ? Effect.succeed(me) : Effect.fail(botsRefused()))
