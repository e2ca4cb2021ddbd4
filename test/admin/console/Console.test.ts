import { assert, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { NodeHttpServer } from "@effect/platform-node"
import { HttpRouter } from "effect/http"
import { mkdirSync, mkdtempSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CONSOLE_CSP, consoleRoutes } from "../../../src/admin/console/Routes.ts"
import { identifyAt } from "../../gateway/Client.ts"
import { newSecret, PASSWORD, stepNow, totpAt } from "../../mfa/Support.ts"
import { field } from "../../support/Api.ts"
import { chromiumContext, type Page, until, watchErrors } from "../../support/Chromium.ts"
import { clusterEnvironment, clusterJson, clusterRegister, eventually } from "../../support/Cluster.ts"
import { freePort, ROOT, startProcess, waitHealthy } from "../../support/Processes.ts"

/**
 * The operators' console in headless Chromium against a real cluster (an API
 * process and two shard processes): sign in, watch the processes, shut a guild's
 * actor down and reload it from the page. The page is built by `pretest`
 * (npm run build:console). Screenshots are kept in .tmp/artifacts/ (console.png:
 * the dashboard; console-signin.png, console-confirm.png).
 */

const ARTIFACTS = join(ROOT, ".tmp", "artifacts")
const IMMUTABLE = "public, max-age=31536000, immutable"

const tileValue = (page: Page, tile: string) =>
  page.locator(`[data-tile="${tile}"] .tile-value`).textContent().then((text) => Number((text ?? "").replace(/,/g, "")))

const rolesShown = async (page: Page) => {
  const rows = page.locator("#process-table tbody tr")
  const roles: Array<string> = []
  for (let i = 0; i < await rows.count(); i++) roles.push(await rows.nth(i).getAttribute("data-role") ?? "")
  return roles.sort()
}

const toastText = (page: Page) => page.locator(".toasts").innerText()

const auditActions = async (base: string, adminKey: string) => {
  const reply = await fetch(`${base}/admin/audit-logs`, {
    method: "POST",
    headers: { authorization: `Admin ${adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ limit: 50 })
  })
  const body: unknown = await reply.json()
  const logs = typeof body === "object" && body !== null && "logs" in body && Array.isArray(body.logs) ? body.logs : []
  return logs.map((entry: unknown) => typeof entry === "object" && entry !== null && "action" in entry ? String(entry.action) : "")
}

/** Runs one confirmed action: the button, then the dialog's confirm; the dialog closes. */
const confirmAction = async (page: Page, scope: string, button: string, expectInDialog: string) => {
  await page.locator(scope).getByRole("button", { name: button, exact: true }).click()
  const dialog = page.getByRole("alertdialog")
  await dialog.waitFor()
  assert.include(await dialog.innerText(), expectInDialog)
  await dialog.locator("[data-confirm]").click()
  await dialog.waitFor({ state: "detached" })
}

it.live("the console signs in, lists the cluster's processes, and shuts down and reloads a guild actor", () =>
  Effect.gen(function*() {
    const { adminKey, env } = yield* clusterEnvironment()
    for (let i = 0; i < 2; i++) yield* startProcess("shards/main.ts", { ...env, SHARD_PORT: String(yield* freePort) })
    const port = yield* freePort
    const base = `http://127.0.0.1:${port}`
    const api = yield* startProcess("src/main.ts", { ...env, PORT: String(port) })
    yield* waitHealthy(`${base}/_health`, api, 90)

    // A guild whose actor is live: created, then read.
    const owner = yield* clusterRegister(base, "console-owner@example.com")
    const created = yield* clusterJson(`${base}/guilds`, { method: "POST", token: owner.token, body: { name: "Console Guild" } })
    const guildId = field(created.body, "id")
    yield* clusterJson(`${base}/guilds/${guildId}`, { token: owner.token })
    // More live guilds, and a gateway session of someone in none of them, for the page to show.
    const guildIds = [guildId]
    for (const name of ["Night Shift Ops", "Lantern Makers", "Quiet Library"]) {
      const other = yield* clusterJson(`${base}/guilds`, { method: "POST", token: owner.token, body: { name } })
      guildIds.push(field(other.body, "id"))
      yield* clusterJson(`${base}/guilds/${field(other.body, "id")}`, { token: owner.token })
    }
    // Shards still settling between the two processes stop the actors of the shards that move;
    // a read starts an actor again wherever its shard now lives.
    const readEveryGuild = () =>
      Promise.all(guildIds.map((id) => fetch(`${base}/guilds/${id}`, { headers: { authorization: owner.token } }).then((r) => r.text())))
    // An account holding only the stats ACL, and one holding none.
    const watcher = yield* clusterRegister(base, "console-watcher@example.com")
    const acls = yield* clusterJson(`${base}/admin/users/set-acls`, {
      method: "POST",
      token: `Admin ${adminKey}`,
      body: { user_id: watcher.userId, acls: ["admin:authenticate", "gateway:memory_stats"] }
    })
    assert.strictEqual(acls.status, 200, JSON.stringify(acls.body))
    // The watcher signs in with a second factor.
    const secret = newSecret()
    const enabledStep = stepNow()
    const totp = yield* clusterJson(`${base}/users/@me/mfa/totp/enable`, {
      method: "POST",
      token: watcher.token,
      body: { secret, code: totpAt(secret, enabledStep), password: PASSWORD }
    })
    assert.strictEqual(totp.status, 200, JSON.stringify(totp.body))
    yield* identifyAt(`ws://127.0.0.1:${port}/gateway/socket?v=1&encoding=json`, watcher.token)
    yield* eventually("both shard processes publish", clusterJson(`${base}/admin/gateway/stats`, { token: `Admin ${adminKey}` }), (reply) =>
      JSON.stringify(reply.body).split(`"role":"shard"`).length === 3)

    const browser = yield* chromiumContext({ viewport: { width: 1440, height: 900 } })
    yield* Effect.promise(async () => {
      const page = await browser.newPage()
      const errors = watchErrors(page)
      const assets: Array<{ url: string; headers: Record<string, string> }> = []
      page.on("response", (response) => {
        if (response.url().includes("/admin/console/assets/")) assets.push({ url: response.url(), headers: response.headers() })
      })

      // The page: never cached, under the strict policy, with the headers of every answer.
      const opened = await page.goto(`${base}/admin/console`)
      assert.strictEqual(opened?.status(), 200)
      const headers = opened?.headers() ?? {}
      assert.strictEqual(headers["content-security-policy"], CONSOLE_CSP)
      assert.include(CONSOLE_CSP, "script-src 'self'")
      assert.notInclude(CONSOLE_CSP, "unsafe-inline")
      assert.strictEqual(headers["cache-control"], "no-store")
      assert.strictEqual(headers["x-content-type-options"], "nosniff")
      assert.match(headers["x-request-id"] ?? "", /.+-.+/)
      await page.locator("#signin").waitFor()

      // Hashed assets: cached for a year, under the same policy.
      assert.sameMembers(assets.map((a) => /app-[A-Z0-9]+\.(js|css)$/.exec(a.url)?.[1]), ["js", "css"])
      for (const asset of assets) {
        assert.strictEqual(asset.headers["cache-control"], IMMUTABLE, asset.url)
        assert.strictEqual(asset.headers["content-security-policy"], CONSOLE_CSP, asset.url)
      }
      const missing = await fetch(`${base}/admin/console/assets/app-MISSING.js`)
      assert.strictEqual(missing.status, 404)
      assert.deepInclude(await missing.json(), { code: "GENERAL_ERROR" })

      // A wrong key is refused, and says so.
      await page.locator("input[name=key]").fill("not-the-key")
      await page.getByRole("button", { name: "Sign in" }).click()
      assert.include(await page.getByRole("alert").innerText(), "The API key was refused (UNAUTHORIZED)")
      mkdirSync(ARTIFACTS, { recursive: true })
      await page.screenshot({ path: join(ARTIFACTS, "console-signin.png") })

      // The right key: the cluster's three processes.
      await page.locator("input[name=key]").fill(adminKey)
      await page.getByRole("button", { name: "Sign in" }).click()
      await until("the processes listed", () => rolesShown(page), (roles) => roles.join() === "api,shard,shard")
      // The four guilds' actors, all live (nothing else in the scratch database is a guild).
      const liveBefore = await until("every guild's actor counted", async () => {
        await readEveryGuild()
        return tileValue(page, "guilds")
      }, (n) => n === 4)

      // Find the guild and open it.
      await page.locator("#find input[name=query]").fill("Console Guild")
      await page.locator("#find").getByRole("button", { name: "Search" }).click()
      await page.locator("#find-results li", { hasText: guildId }).getByRole("button", { name: "Open" }).click()
      await page.locator("#opened-guild dl", { hasText: owner.userId }).waitFor()

      // Shut it down: nothing happens before the confirmation.
      await page.locator("#opened-guild").getByRole("button", { name: "Shut down actor" }).click()
      await page.getByRole("alertdialog").waitFor()
      assert.notInclude(await auditActions(base, adminKey), "guild.shutdown")
      await page.screenshot({ path: join(ARTIFACTS, "console-confirm.png") })
      await page.getByRole("alertdialog").getByRole("button", { name: "Cancel" }).click()
      await confirmAction(page, "#opened-guild", "Shut down actor", guildId)
      await until("the shutdown's result shown", () => toastText(page), (text) => text.includes(`Shut down “Console Guild” (${guildId}).`))
      await until("the live guild count drops", () => tileValue(page, "guilds"), (n) => n === liveBefore - 1)

      // Reload it: its actor starts again.
      await confirmAction(page, "#opened-guild", "Reload actor", guildId)
      await until("the reload's result shown", () => toastText(page), (text) => text.includes(`Reloaded “Console Guild” (${guildId}).`))
      await until("the live guild count is back", () => tileValue(page, "guilds"), (n) => n === liveBefore)
      const audited = await auditActions(base, adminKey)
      assert.includeMembers(audited, ["guild.shutdown", "guild.reload"])
      await until("the audit log panel shows both", async () => {
        const rows = page.locator("#audit-table tbody tr")
        return [await rows.filter({ hasText: "guild.shutdown" }).count(), await rows.filter({ hasText: "guild.reload" }).count()]
      }, ([shutdown, reload]) => shutdown === 1 && reload === 1)
      await until("the heaviest guild actors listed", () => page.locator("#heavy-table tbody tr").count(), (n) => n >= 1)

      // Let the charts gather a few polls, then keep a picture of the page.
      await page.locator("#opened-guild").getByRole("button", { name: "Back to results" }).click()
      await until("the toasts gone", () => page.locator(".toast").count(), (n) => n === 0)
      await page.evaluate("window.scrollTo(0, 0)")
      await page.screenshot({ path: join(ARTIFACTS, "console.png"), fullPage: true })

      // A user found and opened.
      await page.locator("#find").getByRole("button", { name: "Users", exact: true }).click()
      await page.locator("#find input[name=query]").fill("console-watcher")
      await page.locator("#find").getByRole("button", { name: "Search" }).click()
      await page.locator("#find-results li", { hasText: watcher.userId }).getByRole("button", { name: "Open" }).click()
      assert.include(await page.locator("#opened-user").innerText(), "console-watcher@example.com")

      // The credential was never stored: no cookie, nothing in the page's storage.
      assert.deepStrictEqual(await browser.cookies(), [])
      assert.strictEqual(await page.evaluate("localStorage.length + sessionStorage.length"), 0)
      await page.getByRole("button", { name: "Sign out" }).click()
      await page.locator("#signin").waitFor()
      assert.deepStrictEqual(errors, [])
      await page.close()
    })

    // Accounts: one holding no admin ACL is refused; one holding only the stats ACL (and TOTP) sees only the stats panels.
    yield* Effect.promise(async () => {
      const page = await browser.newPage()
      const errors = watchErrors(page)
      await page.goto(`${base}/admin/console`)
      const signIn = async (email: string) => {
        await page.getByRole("tab", { name: "Operator account" }).click()
        await page.locator("input[name=email]").fill(email)
        await page.locator("input[name=password]").fill(PASSWORD)
        await page.getByRole("button", { name: "Sign in" }).click()
      }
      await signIn("console-owner@example.com")
      assert.include(await page.getByRole("alert").innerText(), "may not use the admin API (MISSING_PERMISSIONS")
      await signIn("console-watcher@example.com")
      // The step after the enabling one: each code is accepted once, and the step before or after now is.
      await page.locator("input[name=code]").fill(totpAt(secret, enabledStep + 1))
      await page.getByRole("button", { name: "Verify code" }).click()
      await until("the processes listed", () => rolesShown(page), (roles) => roles.join() === "api,shard,shard")
      assert.strictEqual(await page.locator("#guild-actors").count(), 0)
      assert.strictEqual(await page.locator("#audit-log").count(), 0)
      assert.strictEqual(await page.locator("#heaviest").getByRole("button", { name: "Shut down" }).count(), 0)
      assert.deepStrictEqual(errors, [])
      await page.close()
    })
  }), { timeout: 300_000 })

it.live("without a build the console answers 503 saying how to build it", () =>
  Effect.gen(function*() {
    const port = yield* freePort
    const unbuilt = mkdtempSync(join(tmpdir(), "guildhall-console-unbuilt-"))
    yield* Layer.build(HttpRouter.serve(consoleRoutes(unbuilt), { disableLogger: true }).pipe(
      Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
    ))
    for (const path of ["/admin/console", "/admin/console/assets/app-X.js"]) {
      const reply = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}${path}`))
      assert.strictEqual(reply.status, 503)
      const body: unknown = yield* Effect.promise(() => reply.json())
      assert.deepInclude(body, { code: "SERVICE_UNAVAILABLE" })
      assert.include(field(body, "message"), "npm run build:console")
    }
  }))
