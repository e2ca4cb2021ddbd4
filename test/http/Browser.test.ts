import { assert, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { createServer, type Server } from "node:http"
import { join } from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import { createGuild } from "../support/Cast.ts"
import { TestApi } from "../support/Api.ts"
import { freePort } from "../support/Processes.ts"
import { chromiumContext } from "../support/Chromium.ts"

/**
 * A web client as browsers run it: a page served from its own origin calls the
 * API with `fetch` and opens the gateway, in headless Chromium (Debian's
 * package, which `ops/ensure-services.sh` makes sure of). The browser, not
 * this test, decides what a page may read. With SCREENSHOT_DIR set, each
 * page is saved there as it ends, to look at what the test saw.
 */

/** The page: two calls a web client makes, each writing what came of it into the page. */
const PAGE_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>Guildhall web client</title></head>
<body style="font: 16px monospace">
<h1 id="origin"></h1>
<ol id="log"></ol>
<script>
document.getElementById("origin").textContent = "page at " + location.origin
const log = (line) => {
  const item = document.createElement("li")
  item.textContent = line
  document.getElementById("log").append(item)
  return line
}
window.sendMessage = async (api, token, channelId) => {
  try {
    const response = await fetch(api + "/v1/channels/" + channelId + "/messages", {
      method: "POST",
      headers: { authorization: token, "content-type": "application/json", "x-audit-log-reason": "from the web" },
      body: JSON.stringify({ content: "sent from " + location.origin })
    })
    const body = await response.json()
    return log("fetch: " + response.status + " message " + body.id + ", x-ratelimit-limit " + response.headers.get("x-ratelimit-limit"))
  } catch (error) {
    return log("fetch: blocked (" + error + ")")
  }
}
window.openGateway = (url) => new Promise((done) => {
  const socket = new WebSocket(url)
  socket.onmessage = (event) => {
    socket.onclose = null
    socket.close()
    done(log("gateway: op " + JSON.parse(event.data).op))
  }
  socket.onclose = (event) => done(log("gateway: closed " + event.code))
})
</script>
</body></html>`

/** The page served on two loopback origins of their own: the one CORS_ORIGINS allows, and another. */
class Pages extends Context.Service<Pages, { readonly allowed: string; readonly other: string }>()("test/Pages") {
  static readonly layer = Layer.effect(
    Pages,
    Effect.gen(function*() {
      const serve = Effect.acquireRelease(
        Effect.flatMap(freePort, (port) =>
          Effect.promise(() =>
            new Promise<{ server: Server; origin: string }>((done) => {
              const server = createServer((_request, response) => {
                response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
                response.end(PAGE_HTML)
              })
              server.listen(port, "127.0.0.1", () => done({ server, origin: `http://127.0.0.1:${port}` }))
            }))),
        ({ server }) => Effect.promise(() => new Promise<void>((done) => server.close(() => done())))
      )
      const [allowed, other] = yield* Effect.all([serve, serve])
      return { allowed: allowed.origin, other: other.origin }
    })
  )
}

/** Headless Chromium with a new, empty profile (support/Chromium.ts), QUIC off. */
class Browser extends Context.Service<Browser, BrowserContext>()("test/Browser") {
  static readonly layer = Layer.effect(Browser, chromiumContext({ extraArgs: ["--disable-quic"] }))
}

const ApiWithPages = Layer.unwrap(
  Effect.map(Pages, (pages) => TestApi.layerWith({ CORS_ORIGINS: pages.allowed, RATE_LIMITS: "on" }))
).pipe(Layer.provideMerge(Pages.layer))

/** What an expression evaluated in the page came to: the page's functions answer the line they wrote. */
const inPage = async (page: Page, expression: string): Promise<string> => {
  const result: unknown = await page.evaluate(expression)
  return typeof result === "string" ? result : `not a line of the page: ${JSON.stringify(result)}`
}

/** Opens the page at `origin`, runs `calls` in it, and saves a screenshot when asked to. */
const onPage = <A>(origin: string, name: string, calls: (page: Page, consoleErrors: ReadonlyArray<string>) => Promise<A>) =>
  Effect.flatMap(Browser, (browser) =>
    Effect.promise(async () => {
      const page = await browser.newPage()
      const consoleErrors: Array<string> = []
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text())
      })
      try {
        await page.goto(`${origin}/`)
        const result = await calls(page, consoleErrors)
        const dir = process.env.SCREENSHOT_DIR
        if (dir !== undefined) await page.screenshot({ path: join(dir, `${name}.png`) })
        return result
      } finally {
        await page.close()
      }
    }))

layer(Layer.mergeAll(ApiWithPages, Browser.layer), { timeout: 120_000, excludeTestServices: true })("a web client in Chromium", (it) => {
  it.effect("calls the API and opens the gateway from the allowed origin; the browser blocks another origin", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const pages = yield* Pages
      const { token } = yield* api.register()
      const { channelId } = yield* createGuild(token)
      const gateway = `${api.baseUrl.replace(/^http/, "ws")}/gateway/socket?v=1&encoding=json`
      // Expressions in the page's own script (evaluated there, awaited by Playwright).
      const call = (page: Page) =>
        inPage(page, `sendMessage(${JSON.stringify(api.baseUrl)}, ${JSON.stringify(token)}, ${JSON.stringify(channelId)})`)
      const open = (page: Page) => inPage(page, `openGateway(${JSON.stringify(gateway)})`)

      const allowed = yield* onPage(pages.allowed, "allowed-origin", async (page) => ({ fetch: await call(page), gateway: await open(page) }))
      assert.match(allowed.fetch, /^fetch: 200 message \d+, x-ratelimit-limit \d+$/)
      assert.strictEqual(allowed.gateway, "gateway: op 10") // HELLO

      const other = yield* onPage(pages.other, "other-origin", async (page, consoleErrors) => ({
        fetch: await call(page),
        gateway: await open(page),
        consoleErrors
      }))
      assert.match(other.fetch, /^fetch: blocked \(TypeError: Failed to fetch\)$/)
      assert.isTrue(other.consoleErrors.some((line) => line.includes("blocked by CORS policy")), other.consoleErrors.join("\n"))
      assert.strictEqual(other.gateway, "gateway: closed 1006")

      // The preflight failed, so the other page's message was never sent.
      const messages = yield* api.request("GET", `/channels/${channelId}/messages`, { token })
      // (an array is matched element by element, and must have the same length)
      expect(messages.body).toMatchObject([{ content: `sent from ${pages.allowed}` }])
    }))
})
