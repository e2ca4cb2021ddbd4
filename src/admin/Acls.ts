/**
 * Operator permissions, named as the production service names them so its admin
 * clients read them unchanged. `*` holds every one; a user needs
 * `admin:authenticate` (or `*`) to reach `/admin` at all, then the route's own ACL.
 */
export const Acl = {
  all: "*",
  authenticate: "admin:authenticate",
  apiKeysManage: "admin:api_keys:manage",
  aclSetUser: "acl:set:user",
  auditLogView: "audit_log:view",
  guildReload: "guild:reload",
  guildShutdown: "guild:shutdown",
  gatewayMemoryStats: "gateway:memory_stats",
  gatewayReloadAll: "gateway:reload_all",
  instanceConfigView: "instance:config:view",
  instanceConfigUpdate: "instance:config:update",
  userLookup: "user:lookup",
  userListSessions: "user:list:sessions",
  userListGuilds: "user:list:guilds",
  userTerminateSessions: "user:terminate:sessions",
  userUpdateMfa: "user:update:mfa",
  userUpdateProfile: "user:update:profile",
  userUpdateBotStatus: "user:update:bot_status",
  userUpdateEmail: "user:update:email",
  userUpdatePhone: "user:update:phone",
  userUpdateDob: "user:update:dob",
  userUpdateUsername: "user:update:username",
  userUpdateFlags: "user:update:flags",
  userUpdateSuspiciousActivity: "user:update:suspicious_activity",
  userUpdateTraits: "user:update:traits",
  userTempBan: "user:temp_ban",
  userDisableSuspicious: "user:disable:suspicious",
  userDelete: "user:delete",
  userCancelBulkMessageDeletion: "user:cancel:bulk_message_deletion",
  banEmailCheck: "ban:email:check",
  banEmailAdd: "ban:email:add",
  banEmailRemove: "ban:email:remove",
  banIpCheck: "ban:ip:check",
  banIpAdd: "ban:ip:add",
  banIpRemove: "ban:ip:remove",
  banPhoneCheck: "ban:phone:check",
  banPhoneAdd: "ban:phone:add",
  banPhoneRemove: "ban:phone:remove",
  snowflakeReservationView: "instance:snowflake_reservation:view",
  snowflakeReservationManage: "instance:snowflake_reservation:manage",
  bulkUpdateUserFlags: "bulk:update:user_flags",
  bulkDeleteUsers: "bulk:delete:users"
} as const
export type Acl = (typeof Acl)[keyof typeof Acl]

export const KNOWN_ACLS: ReadonlySet<string> = new Set(Object.values(Acl))

export const holds = (acls: ReadonlySet<string>, acl: string): boolean => acls.has(Acl.all) || acls.has(acl)

/**
 * The one table of who may call what: every `/admin` route the API serves, by
 * method and path as its endpoint declares them, with the ACL it needs. The admin
 * middleware reads it for each request, and refuses a route missing here (a test
 * checks that none is). Handlers check more only where the body matters (nobody
 * grants an ACL they lack).
 */
export const ROUTE_ACLS: ReadonlyMap<string, Acl> = new Map<string, Acl>([
  ["GET /admin/users/me", Acl.authenticate],
  ["POST /admin/api-keys", Acl.apiKeysManage],
  ["GET /admin/api-keys", Acl.apiKeysManage],
  ["DELETE /admin/api-keys/:keyId", Acl.apiKeysManage],
  ["POST /admin/audit-logs", Acl.auditLogView],
  ["POST /admin/audit-logs/search", Acl.auditLogView],
  ["POST /admin/guilds/reload", Acl.guildReload],
  ["POST /admin/guilds/shutdown", Acl.guildShutdown],
  ["POST /admin/gateway/reload-all", Acl.gatewayReloadAll],
  ["GET /admin/gateway/stats", Acl.gatewayMemoryStats],
  ["POST /admin/gateway/memory-stats", Acl.gatewayMemoryStats],
  ["POST /admin/instance-config/get", Acl.instanceConfigView],
  ["POST /admin/instance-config/update", Acl.instanceConfigUpdate],

  ["POST /admin/users/lookup", Acl.userLookup],
  ["POST /admin/users/search", Acl.userLookup],
  ["POST /admin/users/change-log", Acl.userLookup],
  ["POST /admin/users/list-sessions", Acl.userListSessions],
  ["POST /admin/users/list-dm-channels", Acl.userLookup],
  ["POST /admin/users/list-guilds", Acl.userListGuilds],
  ["POST /admin/users/list-webauthn-credentials", Acl.userLookup],
  ["POST /admin/users/set-acls", Acl.aclSetUser],
  ["POST /admin/users/change-username", Acl.userUpdateUsername],
  ["POST /admin/users/change-email", Acl.userUpdateEmail],
  ["POST /admin/users/verify-email", Acl.userUpdateEmail],
  ["POST /admin/users/resend-verification-email", Acl.userUpdateEmail],
  ["POST /admin/users/send-password-reset", Acl.userUpdateEmail],
  ["POST /admin/users/change-dob", Acl.userUpdateDob],
  ["POST /admin/users/clear-fields", Acl.userUpdateProfile],
  ["POST /admin/users/update-flags", Acl.userUpdateFlags],
  ["POST /admin/users/update-suspicious-activity-flags", Acl.userUpdateSuspiciousActivity],
  ["POST /admin/users/disable-suspicious", Acl.userDisableSuspicious],
  ["POST /admin/users/set-traits", Acl.userUpdateTraits],
  ["POST /admin/users/set-bot-status", Acl.userUpdateBotStatus],
  ["POST /admin/users/set-system-status", Acl.userUpdateBotStatus],
  ["POST /admin/users/unlink-phone", Acl.userUpdatePhone],
  ["POST /admin/users/disable-mfa", Acl.userUpdateMfa],
  ["POST /admin/users/delete-webauthn-credential", Acl.userUpdateMfa],
  ["POST /admin/users/terminate-sessions", Acl.userTerminateSessions],
  ["POST /admin/users/temp-ban", Acl.userTempBan],
  ["POST /admin/users/unban", Acl.userTempBan],
  ["POST /admin/users/schedule-deletion", Acl.userDelete],
  ["POST /admin/users/cancel-deletion", Acl.userDelete],
  ["POST /admin/users/cancel-bulk-message-deletion", Acl.userCancelBulkMessageDeletion],
  ["POST /admin/bulk/update-user-flags", Acl.bulkUpdateUserFlags],
  ["POST /admin/bulk/schedule-user-deletion", Acl.bulkDeleteUsers],

  ["POST /admin/bans/email/add", Acl.banEmailAdd],
  ["POST /admin/bans/email/remove", Acl.banEmailRemove],
  ["POST /admin/bans/email/check", Acl.banEmailCheck],
  ["POST /admin/bans/email/list", Acl.banEmailCheck],
  ["POST /admin/bans/ip/add", Acl.banIpAdd],
  ["POST /admin/bans/ip/remove", Acl.banIpRemove],
  ["POST /admin/bans/ip/check", Acl.banIpCheck],
  ["POST /admin/bans/ip/list", Acl.banIpCheck],
  ["POST /admin/bans/phone/add", Acl.banPhoneAdd],
  ["POST /admin/bans/phone/remove", Acl.banPhoneRemove],
  ["POST /admin/bans/phone/check", Acl.banPhoneCheck],
  ["POST /admin/bans/phone/list", Acl.banPhoneCheck],
  ["POST /admin/snowflake-reservations/add", Acl.snowflakeReservationManage],
  ["POST /admin/snowflake-reservations/delete", Acl.snowflakeReservationManage],
  ["POST /admin/snowflake-reservations/list", Acl.snowflakeReservationView]
])

export const routeKey = (method: string, path: string): string => `${method} ${path}`
