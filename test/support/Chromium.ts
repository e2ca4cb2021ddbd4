import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BrowserContext, chromium, type Page } from "playwright-core"

/** Debian's Chromium, which ops/ensure-services.sh makes sure of. */
const CHROMIUM = "/usr/bin/chromium"

/**
 * Headless Chromium with a new, empty profile; closed, then the profile removed, when the scope ends.
 * The context's `close` event comes before the browser has finished writing its profile on the way
 * out (measured: 54 ms against 111 ms for `close()`), so removing it there raced those writes
 * (ENOTEMPTY); once `close()` has resolved, no process of the profile is left.
 */
export const chromiumContext = (options: {
  readonly extraArgs?: ReadonlyArray<string>
  readonly viewport?: { readonly width: number; readonly height: number }
} = {}) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(async () => {
        const profile = mkdtempSync(join(tmpdir(), "guildhall-chromium-"))
        const context = await chromium.launchPersistentContext(profile, {
          executablePath: CHROMIUM,
          headless: true,
          ...(options.viewport === undefined ? {} : { viewport: { ...options.viewport }, deviceScaleFactor: 1 }),
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            ...(options.extraArgs ?? [])
          ]
        })
        return { profile, context }
      }),
      ({ profile, context }) =>
        Effect.promise(async () => {
          await context.close()
          rmSync(profile, { recursive: true, force: true })
        })
    ),
    ({ context }) => context
  )

/**
 * Everything the page logged as an error (a blocked script or style among them),
 * and every script error it threw: a clean page has none. A refused sign-in is
 * not one: Chromium logs the 401 or 403 it was answered.
 */
export const watchErrors = (page: Page): ReadonlyArray<string> => {
  const errors: Array<string> = []
  page.on("console", (message) => {
    const text = message.text()
    if (message.type() === "error" && !/^Failed to load resource: .* status of 40[13] /.test(text)) errors.push(text)
  })
  page.on("pageerror", (error) => errors.push(String(error)))
  return errors
}

/** Polls `probe` until `done` holds; fails with what it last saw after `seconds`. */
export const until = async <A>(label: string, probe: () => Promise<A>, done: (a: A) => boolean, seconds = 30): Promise<A> => {
  const deadline = Date.now() + seconds * 1000
  let last = await probe()
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`${label}: gave up, last ${JSON.stringify(last)}`)
    await new Promise((r) => setTimeout(r, 250))
    last = await probe()
  }
  return last
}

export type { BrowserContext, Page }
