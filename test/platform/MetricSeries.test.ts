import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { writeBatchSeries } from "../../src/platform/Metrics.ts"

/** The value of the line of `text` that starts with `series` (name and labels). */
const valueOf = (text: string, series: string) => text.split("\n").find((line) => line.startsWith(`${series} `))?.slice(series.length + 1)

describe("metric series", () => {
  it.effect("count where they are recorded and render as Prometheus buckets, a value on a boundary in its bucket", () =>
    Effect.gen(function*() {
      const series = writeBatchSeries("series-test")
      series.committed(4, 0.003, true)
      series.committed(5, 20, false)
      const text = yield* PrometheusMetrics.format()
      const size = (le: string) => valueOf(text, `guildhall_write_batch_size_bucket{actor="series-test",le="${le}"}`)
      assert.strictEqual(size("2"), "0")
      assert.strictEqual(size("4"), "1")
      assert.strictEqual(size("8"), "2")
      assert.strictEqual(size("+Inf"), "2")
      assert.strictEqual(valueOf(text, `guildhall_write_batch_size_sum{actor="series-test"}`), "9")
      const commit = (le: string) => valueOf(text, `guildhall_write_batch_commit_seconds_bucket{actor="series-test",le="${le}"}`)
      assert.strictEqual(commit("0.0025"), "0")
      assert.strictEqual(commit("0.005"), "1")
      assert.strictEqual(commit("10"), "1")
      assert.strictEqual(commit("+Inf"), "2")
      assert.strictEqual(valueOf(text, `guildhall_write_batch_failures_total{actor="series-test"}`), "1")
    }))
})
