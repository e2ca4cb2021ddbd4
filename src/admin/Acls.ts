/**
 * Operator permissions. `*` holds every one; a user needs `admin:authenticate`
 * (or `*`) to reach `/admin` at all, then the route's own ACL.
 */
export const Acl = {
  all: "*",
  authenticate: "admin:authenticate",
  apiKeysManage: "admin:api_keys:manage",
  aclsSet: "admin:acls:set",
  auditLogsView: "admin:audit_logs:view",
  guildsManage: "admin:guilds:manage",
  gatewayView: "admin:gateway:view",
  gatewayManage: "admin:gateway:manage",
  instanceConfigView: "instance:config:view",
  instanceConfigUpdate: "instance:config:update"
} as const

export const KNOWN_ACLS: ReadonlySet<string> = new Set(Object.values(Acl))

export const holds = (acls: ReadonlySet<string>, acl: string): boolean => acls.has(Acl.all) || acls.has(acl)
