import { array, boolean, type Decoded, ignored, nullable, number, object, record, string } from "./decode.ts"

/** The parts of the admin API's answers that the console reads (src/admin/Api.ts and the lookup routes). */

export const Me = object({ user: object({ id: string, username: string, acls: array(string) }) })
export type Me = Decoded<typeof Me>

export const ProcessStats = object({
  process_id: string,
  role: string,
  host: string,
  pid: number,
  guilds: number,
  users: number,
  sessions: number,
  presences: number,
  calls: number,
  memory: number,
  heap_used: number,
  uptime_seconds: number
})
export type ProcessStats = Decoded<typeof ProcessStats>

export const GatewayStats = object({
  status: string,
  sessions: number,
  guilds: number,
  presences: number,
  calls: number,
  memory: object({ total: number, processes: number, system: number }),
  process_count: number,
  uptime_seconds: number,
  processes: array(ProcessStats)
})
export type GatewayStats = Decoded<typeof GatewayStats>

export const MemoryStats = object({
  guilds: array(object({
    guild_id: string,
    guild_name: string,
    memory: number,
    member_count: number,
    session_count: number,
    presence_count: number
  }))
})
export type HeavyGuild = Decoded<typeof MemoryStats>["guilds"][number]

export const AuditLogs = object({
  logs: array(object({
    log_id: string,
    admin_user_id: string,
    action: string,
    audit_log_reason: nullable(string),
    created_at: string,
    metadata: record(string),
    target_id: string,
    target_type: string
  })),
  total: number
})
export type AuditLogEntry = Decoded<typeof AuditLogs>["logs"][number]

export const Done = ignored
export const ReloadAllAnswer = object({ count: number })

const GuildRow = object({ id: string, name: string, owner_id: string, member_count: number, features: array(string) })
export const GuildSearch = object({ guilds: array(GuildRow), total: number })
export type GuildRow = Decoded<typeof GuildRow>

export const GuildLookup = object({
  guild: nullable(object({
    id: string,
    name: string,
    owner_id: string,
    vanity_url_code: nullable(string),
    member_count: number,
    features: array(string),
    verification_level: number,
    channels: array(object({ id: string })),
    roles: array(object({ id: string }))
  }))
})
export type GuildDetail = NonNullable<Decoded<typeof GuildLookup>["guild"]>

const UserRow = object({
  id: string,
  username: string,
  discriminator: number,
  global_name: nullable(string),
  email: nullable(string),
  bot: boolean,
  flags: string,
  acls: array(string),
  temp_banned_until: nullable(string),
  last_active_at: nullable(string)
})
export const UserSearch = object({ users: array(UserRow), total: number })
export type UserRow = Decoded<typeof UserRow>
