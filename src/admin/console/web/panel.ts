import type { FunctionComponent } from "preact"
import type { AdminClient, Failure, Result } from "./api.ts"
import type { GatewayStats } from "./schemas.ts"

/** One poll of `/admin/gateway/stats`, kept for the charts. */
export interface Sample {
  readonly at: number
  readonly sessions: number
  readonly guilds: number
  readonly memory: number
}

/** What the console's polling knows of the deployment. */
export interface Live {
  readonly stats: GatewayStats | undefined
  readonly history: ReadonlyArray<Sample>
  readonly failure: Failure | undefined
  readonly updatedAt: number | undefined
}

/**
 * Something an operator does to the deployment: the console asks them to
 * confirm it (what, on what, what follows), runs it and shows its result.
 */
export interface Action {
  readonly title: string
  readonly detail: string
  readonly confirm: string
  readonly danger: boolean
  /** Resolves to the sentence shown when it succeeded. */
  readonly run: () => Promise<Result<string>>
}

/** What every panel is given. */
export interface PanelProps {
  readonly client: AdminClient
  readonly live: Live
  /** Changes with every poll and after every action: a panel that fetches its own data does so again then. */
  readonly tick: number
  /** Whether the signed-in operator holds an ACL (`*` holds every one). */
  readonly can: (acl: string) => boolean
  readonly act: (action: Action) => void
}

/** A panel of the console: see panels.tsx for how to add one. */
export interface Panel {
  /** The section's DOM id (tests find panels by it). */
  readonly id: string
  readonly title: string
  /** One line under the title: where the figures come from. */
  readonly subtitle: string
  /** Shown when the operator holds at least one of these ACLs (src/admin/Acls.ts). */
  readonly acls: ReadonlyArray<string>
  /** Columns of the 12-column grid it takes. */
  readonly span: 4 | 6 | 8 | 12
  readonly component: FunctionComponent<PanelProps>
}
