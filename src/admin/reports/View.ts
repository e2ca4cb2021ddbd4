import type { Report } from "../../reports/Repo.ts"
import type { ReportAdminResponse } from "./Api.ts"

const tag = (username: string | null, discriminator: string | null) =>
  username === null ? null : `${username}#${(discriminator ?? "0").padStart(4, "0")}`
const padded = (discriminator: string | null) => (discriminator === null ? null : discriminator.padStart(4, "0"))

/** A report as staff see it; the evidence (`message_context`) only where one report is read. */
export const reportView = (r: Report, withContext: boolean): ReportAdminResponse => ({
  report_id: r.id,
  report_type: r.reportType,
  status: r.status,
  reported_at: r.reportedAt,
  category: r.category,
  additional_info: r.additionalInfo,
  public_comment: r.publicComment,
  ...(withContext ? { message_context: r.messageContext ?? [] } : {}),
  reported_channel_id: r.reportedChannelId,
  reported_guild_id: r.reportedGuildId,
  reported_message_id: r.reportedMessageId,
  reported_user_id: r.reportedUserId,
  reporter_id: r.reporterId,
  resolved_by_admin_id: r.resolvedByAdminId,
  reported_channel_name: r.reportedChannelName,
  reported_guild_invite_code: r.reportedGuildInviteCode,
  reported_guild_name: r.reportedGuildName,
  reported_user_avatar_hash: r.reportedUserAvatarHash,
  reported_user_discriminator: padded(r.reportedUserDiscriminator),
  reported_user_tag: tag(r.reportedUserUsername, r.reportedUserDiscriminator),
  reported_user_username: r.reportedUserUsername,
  reporter_country_of_residence: r.reporterCountryOfResidence,
  reporter_discriminator: padded(r.reporterDiscriminator),
  reporter_email: r.reporterEmail,
  reporter_full_legal_name: r.reporterFullLegalName,
  reporter_tag: tag(r.reporterUsername, r.reporterDiscriminator),
  reporter_username: r.reporterUsername,
  resolved_at: r.resolvedAt
})
