import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { notFound } from "../../http/ErrorResponses.ts"
import { CONSOLE_ASSETS_PATH, CONSOLE_DIR, CONSOLE_PATH, type ConsoleBundle, readBundle } from "./Bundle.ts"

/**
 * The page may load only its own script and style, talk only to this origin,
 * and be framed by nobody; no inline script or style runs. The credential lives
 * in the page's memory, so an injected script is what this keeps out.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'"
].join("; ")

const pageHeaders = { "content-security-policy": CONSOLE_CSP, "x-frame-options": "DENY" }
/** Asset names carry their content's hash: a name never has other bytes. */
const IMMUTABLE = "public, max-age=31536000, immutable"

const notBuilt = HttpServerResponse.jsonUnsafe(
  { code: "SERVICE_UNAVAILABLE", message: "The operators' console is not built: run `npm run build:console`" },
  { status: 503, headers: { "cache-control": "no-store" } }
)

/** Every answer of one build, made once. */
const answersOf = (bundle: ConsoleBundle) => ({
  page: HttpServerResponse.uint8Array(bundle.html, {
    contentType: "text/html; charset=utf-8",
    headers: { ...pageHeaders, "cache-control": "no-store" }
  }),
  assets: new Map([...bundle.assets].map(([name, asset]) => [
    name,
    HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType, headers: { ...pageHeaders, "cache-control": IMMUTABLE } })
  ]))
})

/**
 * `GET /admin/console` and its assets: plain routes beside the API (the page is
 * public; its data comes from the admin API with the operator's credential).
 * The build is read at the first request that finds it; until then the page
 * answers 503 saying how to build it.
 */
export const consoleRoutes = (dir: string = CONSOLE_DIR) =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      let answers: ReturnType<typeof answersOf> | undefined
      const built = Effect.sync(() => {
        if (answers === undefined) {
          const bundle = readBundle(dir)
          if (bundle !== undefined) answers = answersOf(bundle)
        }
        return answers
      })
      yield* router.add("GET", CONSOLE_PATH, Effect.map(built, (found) => found?.page ?? notBuilt))
      yield* router.add(
        "GET",
        `${CONSOLE_ASSETS_PATH}/:file`,
        Effect.gen(function*() {
          const found = yield* built
          if (found === undefined) return notBuilt
          const { file } = yield* HttpRouter.params
          return (file === undefined ? undefined : found.assets.get(file)) ?? notFound()
        })
      )
    })
  )
