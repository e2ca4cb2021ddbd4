import { globSync, readFileSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import type { Reporter, TestModule, TestRunEndReason } from "vitest/node"

/**
 * After a run of every test file, names the built endpoints whose 2xx answer no test
 * checked against reference/responses.json (test/support/ResponseShapes.ts), and fails
 * the run if there is one. A run of some files only cannot say, so it says nothing.
 */
export class ResponseShapesReporter implements Reporter {
  private readonly checkedLog: string
  private readonly removeAfter: boolean
  /** `removeAfter`: the log's folder is the run's own temporary one. */
  constructor(checkedLog: string, removeAfter: boolean) {
    this.checkedLog = checkedLog
    this.removeAfter = removeAfter
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>, reason: TestRunEndReason) {
    try {
      await this.report(testModules, errors, reason)
    } finally {
      if (this.removeAfter) rmSync(dirname(this.checkedLog), { recursive: true, force: true })
    }
  }

  private async report(testModules: ReadonlyArray<TestModule>, _errors: ReadonlyArray<unknown>, reason: TestRunEndReason) {
    if (reason !== "passed") return
    const root = process.cwd()
    const everyFile = globSync("test/**/*.test.ts", { cwd: root })
    if (testModules.length < everyFile.length) return
    let checked: ReadonlySet<string>
    try {
      checked = new Set(readFileSync(this.checkedLog, "utf8").split("\n"))
    } catch {
      checked = new Set()
    }
    // Loaded here, not with the config: it is the whole HTTP API.
    const built: typeof import("./BuiltOperations.ts") = await import(pathToFileURL(join(root, "test", "support", "BuiltOperations.ts")).href)
    const unchecked = built.uncheckedOperations(checked)
    if (unchecked.length === 0) return
    console.error(
      `\n${unchecked.length} built endpoint(s) answer a body that no test checked against reference/responses.json;\n` +
        `call each from a test through test/support (TestApi.request, clusterJson):\n  ${unchecked.join("\n  ")}\n`
    )
    process.exitCode = 1
  }
}
