// The soak's series as small multiples (one SVG line chart per figure), drawn by headless
// Chromium into a PNG: Debian's chromium through playwright-core, as the console tests do,
// so the plot needs nothing beyond what the repository already has.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium } from "playwright-core"

/** One sample of the soak: every process's figures, Redis's keys, the interval's requests and latency. */
export interface SoakPoint {
  readonly at: number
  readonly minute: number
  readonly processes: Readonly<Record<string, { readonly rssMb: number; readonly fds: number }>>
  readonly redisKeys: number
  readonly requests: number
  readonly rps: number
  readonly p50: number
  readonly p99: number
  /** Answers 5xx other than 503, and client timeouts, in the interval. */
  readonly serverErrors: number
  readonly hangs: number
}

export interface ChartSeries {
  readonly name: string
  readonly values: ReadonlyArray<number>
}

export interface Chart {
  readonly title: string
  /** Minutes since the load began, one per sample. */
  readonly minutes: ReadonlyArray<number>
  readonly series: ReadonlyArray<ChartSeries>
  /** Where the warm-up ended (minutes), drawn as a dashed line. */
  readonly warmupEnd: number
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
const W = 560
const H = 260
const PAD = { left: 64, right: 16, top: 30, bottom: 34 }

const niceMax = (v: number) => {
  if (v <= 0) return 1
  const p = 10 ** Math.floor(Math.log10(v))
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((m) => m >= v) ?? v
}

const chartSvg = (chart: Chart) => {
  const all = chart.series.flatMap((s) => s.values).filter(Number.isFinite)
  const yMax = niceMax(Math.max(0, ...all) * 1.1)
  const xMax = Math.max(1, ...chart.minutes)
  const x = (m: number) => PAD.left + (m / xMax) * (W - PAD.left - PAD.right)
  const y = (v: number) => H - PAD.bottom - (v / yMax) * (H - PAD.top - PAD.bottom)
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * yMax)
  const xTicks = Array.from({ length: 6 }, (_, i) => Math.round((i * xMax) / 5))
  const lines = chart.series.map((s, i) => {
    const points = s.values.map((v, j) => `${x(chart.minutes[j] ?? 0).toFixed(1)},${y(v).toFixed(1)}`).join(" ")
    return `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.6" points="${points}"/>`
  })
  const legend = chart.series.map((s, i) =>
    `<text x="${W - PAD.right - 4}" y="${PAD.top + 14 + i * 14}" text-anchor="end" fill="${COLORS[i % COLORS.length]}">${s.name}</text>`)
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">
<rect width="${W}" height="${H}" fill="white"/>
<text x="${PAD.left}" y="18" font-size="13" font-weight="bold">${chart.title}</text>
${ticks.map((t) => `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(t)}" y2="${y(t)}" stroke="#eee"/><text x="${PAD.left - 6}" y="${y(t) + 4}" text-anchor="end">${Number(t.toPrecision(3))}</text>`).join("\n")}
${xTicks.map((t) => `<text x="${x(t)}" y="${H - PAD.bottom + 16}" text-anchor="middle">${t}</text>`).join("\n")}
<text x="${(W + PAD.left) / 2}" y="${H - 4}" text-anchor="middle">minutes</text>
<line x1="${x(chart.warmupEnd)}" x2="${x(chart.warmupEnd)}" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="#999" stroke-dasharray="4 3"/>
${lines.join("\n")}
${legend.join("\n")}
</svg>`
}

/** Renders the charts two to a row and writes the PNG to `path`. */
export const renderCharts = async (charts: ReadonlyArray<Chart>, caption: string, path: string) => {
  const html = `<!doctype html><html><body style="margin:0;background:white;font-family:sans-serif">
<div id="plot" style="display:inline-grid;grid-template-columns:repeat(2,${W}px);gap:8px;padding:12px">
<div style="grid-column:1/3;font-size:14px">${caption}</div>
${charts.map(chartSvg).join("\n")}
</div></body></html>`
  const profile = mkdtempSync(join(tmpdir(), "guildhall-soak-chromium-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 2 * W + 60, height: 1200 },
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
  })
  try {
    const page = await context.newPage()
    await page.setContent(html)
    await page.locator("#plot").screenshot({ path })
  } finally {
    await context.close()
    rmSync(profile, { recursive: true, force: true })
  }
}

/** The soak's plot: memory and fds per process, Redis keys, latency, throughput. */
export const plotSoak = (
  points: ReadonlyArray<SoakPoint>,
  run: { readonly minutes: number; readonly warmupMinutes: number; readonly guilds: number; readonly passed: boolean },
  path: string
) => {
  const minutes = points.map((p) => Number(p.minute.toFixed(2)))
  const names = [...new Set(points.flatMap((p) => Object.keys(p.processes)))]
  const perProcess = (pick: (f: { readonly rssMb: number; readonly fds: number }) => number) =>
    names.map((name) => ({ name, values: points.map((p) => { const f = p.processes[name]; return f === undefined ? 0 : pick(f) }) }))
  const warmupEnd = run.warmupMinutes
  const charts: ReadonlyArray<Chart> = [
    { title: "Resident memory per process (MB)", minutes, warmupEnd, series: perProcess((f) => f.rssMb) },
    { title: "Open file descriptors per process", minutes, warmupEnd, series: perProcess((f) => f.fds) },
    { title: "Redis keys", minutes, warmupEnd, series: [{ name: "keys", values: points.map((p) => p.redisKeys) }] },
    { title: "Latency per interval (ms)", minutes, warmupEnd, series: [{ name: "p99", values: points.map((p) => p.p99) }, { name: "p50", values: points.map((p) => p.p50) }] },
    { title: "Requests per second", minutes, warmupEnd, series: [{ name: "req/s", values: points.map((p) => p.rps) }] }
  ]
  const caption = `Soak: ${run.minutes} min, 2 shards + 2 APIs, ${run.guilds} guilds of mixed load; dashed line: end of warm-up. ${run.passed ? "Passed" : "FAILED"}.`
  return renderCharts(charts, caption, path)
}
