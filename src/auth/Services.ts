import { Layer } from "effect"
import { RateLimiter } from "../ratelimit/RateLimiter.ts"
import { IpAuthorizations } from "./IpAuthorizations.ts"
import { LoginCompletion } from "./LoginCompletion.ts"
import { Recovery } from "./Recovery.ts"
import { SignIn } from "./SignIn.ts"

/**
 * The services this domain's handlers need beyond the shared ones of src/App.ts.
 * LoginCompletion is a sibling of this layer in App.ts, so SignIn gets its own
 * (it holds no state). The RateLimiter is Redis with REDIS_URL, else memory.
 */
const signIn = SignIn.layer.pipe(Layer.provideMerge(LoginCompletion.layer))

export const services = Layer.mergeAll(
  RateLimiter.layer,
  IpAuthorizations.layer,
  Recovery.layer.pipe(Layer.provideMerge(signIn))
)
