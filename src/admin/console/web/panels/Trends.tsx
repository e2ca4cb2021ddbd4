import { bytes, count } from "../format.ts"
import type { PanelProps } from "../panel.ts"
import { Chart } from "../ui/Chart.tsx"

/** Sessions, live guilds and memory over the minutes this page has been polling. */
export const Trends = ({ live }: PanelProps) => (
  <div class="charts">
    <Chart label="Gateway sessions" samples={live.history} pick={(s) => s.sessions} format={(v) => count(Math.round(v))} tone="blue" />
    <Chart label="Live guilds" samples={live.history} pick={(s) => s.guilds} format={(v) => count(Math.round(v))} tone="green" />
    <Chart label="Memory (RSS, all processes)" samples={live.history} pick={(s) => s.memory} format={bytes} tone="violet" unit={1024 * 1024} />
  </div>
)
