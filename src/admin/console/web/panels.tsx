import type { Panel } from "./panel.ts"
import { AuditLog } from "./panels/AuditLog.tsx"
import { Find } from "./panels/Find.tsx"
import { GuildControls } from "./panels/GuildControls.tsx"
import { HeavyGuilds } from "./panels/HeavyGuilds.tsx"
import { Overview } from "./panels/Overview.tsx"
import { Processes } from "./panels/Processes.tsx"
import { Trends } from "./panels/Trends.tsx"

/**
 * THE place to add to the console: every panel the page shows, in order.
 *
 * To bring a new admin endpoint into the console (the console's extension rule):
 *   1. write a component in panels/ taking `PanelProps` (panel.ts): call the API
 *      with `props.client` (the signed-in operator's credential is inside it), read
 *      the answer through a decoder (schemas.ts, decode.ts), refetch on `props.tick`
 *      with `usePolled`, and send anything that changes the deployment through
 *      `props.act(...)`, which asks for confirmation and shows the result;
 *   2. add one entry below, naming the ACLs of src/admin/Acls.ts that the endpoint
 *      needs: operators holding none of them do not see the panel.
 * Nothing else changes: no route, no server code (the page calls the admin API
 * the operator is signed in to), and `npm run build:console` bundles it.
 */
export const panels: ReadonlyArray<Panel> = [
  {
    id: "overview",
    title: "Cluster",
    subtitle: "Totals over every live process · GET /admin/gateway/stats",
    acls: ["gateway:memory_stats"],
    span: 12,
    component: Overview
  },
  {
    id: "trends",
    title: "Trends",
    subtitle: "Since this page opened, polled every 3 s",
    acls: ["gateway:memory_stats"],
    span: 12,
    component: Trends
  },
  {
    id: "processes",
    title: "Processes",
    subtitle: "API and shard processes publishing their figures",
    acls: ["gateway:memory_stats"],
    span: 12,
    component: Processes
  },
  {
    id: "heaviest",
    title: "Heaviest guild actors",
    subtitle: "By memory · POST /admin/gateway/memory-stats",
    acls: ["gateway:memory_stats"],
    span: 6,
    component: HeavyGuilds
  },
  {
    id: "guild-actors",
    title: "Guild actors",
    subtitle: "Reload or shut down an actor; reload all",
    acls: ["guild:reload", "guild:shutdown", "gateway:reload_all"],
    span: 6,
    component: GuildControls
  },
  {
    id: "find",
    title: "Find a guild or user",
    subtitle: "POST /admin/guilds/search · /admin/users/search",
    acls: ["guild:lookup", "user:lookup"],
    span: 6,
    component: Find
  },
  {
    id: "audit-log",
    title: "Audit log",
    subtitle: "Newest operator actions · POST /admin/audit-logs",
    acls: ["audit_log:view"],
    span: 6,
    component: AuditLog
  }
]
