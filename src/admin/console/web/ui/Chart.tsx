import type { Sample } from "../panel.ts"

const WIDTH = 320
const HEIGHT = 120
const LEFT = 60
const TOP = 8
const BOTTOM = 18
const PLOT_W = WIDTH - LEFT - 6
const PLOT_H = HEIGHT - TOP - BOTTOM

/** A round upper bound for the axis, even so that its half is round too: 1, 2, 4, 6 or 8 times a power of ten. */
const niceCeiling = (value: number): number => {
  if (value <= 0) return 1
  const power = 10 ** Math.floor(Math.log10(value))
  const step = [1, 2, 4, 6, 8, 10].find((m) => m * power >= value) ?? 10
  return step * power
}

/**
 * One figure over the minutes the page has polled, drawn as SVG (no chart
 * library: a line, its area and three grid lines are all it takes).
 */
export const Chart = (props: {
  readonly label: string
  readonly samples: ReadonlyArray<Sample>
  readonly pick: (sample: Sample) => number
  readonly format: (value: number) => string
  readonly tone: "blue" | "green" | "violet"
  /** The unit the axis rounds in (1 MiB for memory); counts round in ones. */
  readonly unit?: number
}) => {
  const { samples, pick, format } = props
  const last = samples.at(-1)
  const first = samples[0]
  const values = samples.map(pick)
  const unit = props.unit ?? 1
  // At least 2 units high, so that a flat line of zeros still has a readable axis.
  const top = niceCeiling(Math.max(2, (Math.max(0, ...values) * 1.1) / unit)) * unit
  // The newest sample is at the right edge ("now"); the axis spans at least a minute.
  const end = last?.at ?? 0
  const span = Math.max(60_000, end - (first?.at ?? end))
  const start = end - span
  const x = (at: number) => LEFT + ((at - start) / span) * PLOT_W
  const y = (value: number) => TOP + PLOT_H - (value / top) * PLOT_H
  const points = samples.map((s) => `${x(s.at).toFixed(1)},${y(pick(s)).toFixed(1)}`)
  const line = points.length > 0 ? `M${points.join("L")}` : ""
  const area = first !== undefined && last !== undefined
    ? `${line}L${x(last.at).toFixed(1)},${TOP + PLOT_H}L${x(first.at).toFixed(1)},${TOP + PLOT_H}Z`
    : ""
  const minutes = Math.round(span / 60_000)
  return (
    <figure class={`chart chart-${props.tone}`}>
      <figcaption>
        <span class="chart-label">{props.label}</span>
        <span class="chart-value">{last === undefined ? "–" : format(pick(last))}</span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${props.label} over time`}>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line class="chart-grid" x1={LEFT} x2={WIDTH - 6} y1={y(top * f)} y2={y(top * f)} />
            <text class="chart-axis" x={LEFT - 6} y={y(top * f) + 3} text-anchor="end">{format(top * f)}</text>
          </g>
        ))}
        <path class="chart-area" d={area} />
        <path class="chart-line" d={line} />
        {last !== undefined && <circle class="chart-dot" cx={x(last.at)} cy={y(pick(last))} r="3" />}
        <text class="chart-axis" x={LEFT} y={HEIGHT - 4}>{`last ${minutes} min`}</text>
        <text class="chart-axis" x={WIDTH - 6} y={HEIGHT - 4} text-anchor="end">now</text>
      </svg>
    </figure>
  )
}
