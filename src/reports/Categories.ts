/** The categories a report of each kind may name (part C, GuildReportCategoryEnum; production for the others). */
export const MESSAGE_REPORT_CATEGORIES = [
  "harassment", "hate_speech", "violent_content", "spam", "nsfw_violation", "illegal_activity",
  "doxxing", "self_harm", "child_safety", "malicious_links", "impersonation", "other"
] as const
export const USER_REPORT_CATEGORIES = [
  "harassment", "hate_speech", "spam_account", "impersonation", "underage_user", "inappropriate_profile", "other"
] as const
export const GUILD_REPORT_CATEGORIES = [
  "harassment", "hate_speech", "extremist_community", "illegal_activity", "child_safety",
  "raid_coordination", "spam", "malware_distribution", "other"
] as const

/** ReportType and ReportStatus as stored and as the admin views show them. */
export const ReportType = { MESSAGE: 0, USER: 1, GUILD: 2 } as const
export const ReportStatus = { PENDING: 0, RESOLVED: 1 } as const

/** A status as the reporter's answer names it. */
export const statusName = (status: number): string => (status === ReportStatus.RESOLVED ? "resolved" : "pending")
