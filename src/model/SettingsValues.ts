import type { FieldError } from "./Errors.ts"
import type { CustomStatusPayload, Moment, StoredSettings, UserSettingsResponse, UserSettingsUpdateRequest } from "./Settings.ts"

type Values = Omit<UserSettingsResponse, "theme" | "locale">

/**
 * The settings of a user who changed nothing, as the reference platform sets
 * them up at registration: minors start with stricter friend-request sources
 * and media filters.
 */
export const defaults = (adult: boolean): Values => ({
  status: "online",
  status_resets_at: null,
  status_resets_to: null,
  restricted_guilds: [],
  bot_restricted_guilds: [],
  default_guilds_restricted: false,
  bot_default_guilds_restricted: false,
  inline_attachment_media: true,
  inline_embed_media: true,
  gif_auto_play: true,
  render_embeds: true,
  render_reactions: true,
  animate_emoji: true,
  animate_stickers: 0,
  render_spoilers: 1,
  message_display_compact: false,
  friend_source_flags: adult ? 7 : 3,
  incoming_call_flags: 8,
  group_dm_add_permission_flags: 8,
  guild_folders: [{ id: -1, name: null, color: null, flags: 0, icon: "folder", guild_ids: [] }],
  custom_status: null,
  afk_timeout: 600,
  time_format: 0,
  developer_mode: false,
  trusted_domains: [],
  default_hide_muted_channels: false,
  sensitive_content_friend_dm_filter: adult ? 0 : 1,
  sensitive_content_non_friend_dm_filter: 2,
  sensitive_content_guild_filter: 1,
  suppress_unprivileged_self_mentions: false,
  suppress_unprivileged_self_mentions_bypass_user_ids: [],
  staff_dm_access_user_ids: [],
  synced_preferences: "",
  profile_privacy: 0,
  default_share_voice_activity: true
})

const unique = (ids: ReadonlyArray<string>) => [...new Set(ids)]

/** Leaves out the settings only staff may keep (the reference ignores them for everyone else). */
const withoutStaffOnly = (stored: StoredSettings): StoredSettings => {
  const {
    suppress_unprivileged_self_mentions: _mentions,
    suppress_unprivileged_self_mentions_bypass_user_ids: _bypass,
    staff_dm_access_user_ids: _access,
    ...rest
  } = stored
  return rest
}

/** A moment as stored: ISO 8601, or a problem when it names no real date. */
const instant = (value: Moment, path: string, problems: Array<FieldError>): string | undefined => {
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) {
    problems.push({ path, code: "INVALID_ISO_TIMESTAMP", message: "Not a valid timestamp" })
    return undefined
  }
  return date.toISOString()
}

/** One emoji, as the user sees one character (flags and skin tones included). */
const isSingleEmoji = (text: string) => {
  const graphemes = [...new Intl.Segmenter("en", { granularity: "grapheme" }).segment(text)]
  return graphemes.length === 1 && /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u.test(text)
}

const customStatus = (payload: CustomStatusPayload, now: Date, problems: Array<FieldError>): StoredSettings["custom_status"] => {
  const text = payload.text === undefined || payload.text === null || payload.text.trim() === "" ? null : payload.text
  const expiresAt = payload.expires_at === undefined || payload.expires_at === null
    ? null
    : instant(payload.expires_at, "custom_status.expires_at", problems) ?? null
  if (expiresAt !== null && new Date(expiresAt) <= now) {
    problems.push({ path: "custom_status.expires_at", message: "expires_at must be in the future" })
  }
  const emojiId = payload.emoji_id ?? null
  // A custom emoji wins over a unicode one, as the reference does.
  const emojiName = emojiId === null ? payload.emoji_name ?? null : null
  if (emojiName !== null && !isSingleEmoji(emojiName)) {
    problems.push({ path: "custom_status.emoji_name", code: "NOT_A_VALID_UNICODE_EMOJI", message: "Not a single unicode emoji" })
  }
  if (text === null && emojiId === null && emojiName === null) return null
  return { text, expires_at: expiresAt, emoji_id: emojiId, emoji_name: emojiName, emoji_animated: false }
}

export interface SettingsChange {
  readonly stored: StoredSettings
  readonly theme: string | undefined
  readonly locale: string | undefined
  readonly problems: ReadonlyArray<FieldError>
}

/** A PATCH body as what is stored: normalized, with the fields only staff may set left out for others. */
export const toStored = (body: UserSettingsUpdateRequest, staff: boolean, now: Date): SettingsChange => {
  const problems: Array<FieldError> = []
  const {
    flags,
    theme,
    locale,
    status_resets_at,
    restricted_guilds,
    bot_restricted_guilds,
    guild_folders,
    custom_status,
    suppress_unprivileged_self_mentions_bypass_user_ids: bypass,
    staff_dm_access_user_ids: staffDmAccess,
    synced_preferences,
    ...rest
  } = body
  const stored: StoredSettings = {
    ...rest,
    ...(rest.friend_source_flags === undefined && flags !== undefined ? { friend_source_flags: flags } : {}),
    ...(status_resets_at === undefined
      ? {}
      : { status_resets_at: status_resets_at === null ? null : instant(status_resets_at, "status_resets_at", problems) ?? null }),
    ...(restricted_guilds === undefined ? {} : { restricted_guilds: unique(restricted_guilds) }),
    ...(bot_restricted_guilds === undefined ? {} : { bot_restricted_guilds: unique(bot_restricted_guilds) }),
    ...(guild_folders === undefined ? {} : {
      guild_folders: guild_folders.map((f) => ({
        id: f.id,
        name: f.name ?? null,
        // Absent is black, as the reference defaults it; null is no color.
        color: f.color === undefined ? 0 : f.color,
        flags: f.flags ?? 0,
        icon: f.icon ?? "folder",
        guild_ids: unique(f.guild_ids)
      }))
    }),
    ...(custom_status === undefined
      ? {}
      : { custom_status: custom_status === null ? null : customStatus(custom_status, now, problems) }),
    ...(bypass === undefined ? {} : { suppress_unprivileged_self_mentions_bypass_user_ids: unique(bypass ?? []) }),
    ...(staffDmAccess === undefined ? {} : { staff_dm_access_user_ids: unique(staffDmAccess ?? []) }),
    ...(synced_preferences === undefined ? {} : { synced_preferences: synced_preferences ?? "" })
  }
  return { stored: staff ? stored : withoutStaffOnly(stored), theme, locale, problems }
}

/** What GET answers: defaults, then the stored changes, with a status or custom status past its time undone. */
export const present = (
  stored: StoredSettings,
  user: { readonly theme: string; readonly locale: string; readonly adult: boolean; readonly staff: boolean },
  now: Date
): UserSettingsResponse => {
  const base = defaults(user.adult)
  const merged: Values = { ...base, ...(user.staff ? stored : withoutStaffOnly(stored)) }
  const resetDue = merged.status_resets_at != null && new Date(merged.status_resets_at) <= now
  const expired = merged.custom_status?.expires_at != null && new Date(merged.custom_status.expires_at) <= now
  return {
    ...merged,
    ...(resetDue ? { status: merged.status_resets_to ?? "online", status_resets_at: null, status_resets_to: null } : {}),
    ...(expired ? { custom_status: null } : {}),
    theme: user.theme,
    locale: user.locale
  }
}

const ADULT_AGE = 18

/** Of age on `now`; an unknown birth date counts as under age (the stricter defaults). */
export const isAdult = (dateOfBirth: Date | string | null, now: Date): boolean => {
  if (dateOfBirth === null) return false
  const born = new Date(dateOfBirth)
  const comingOfAge = new Date(born)
  comingOfAge.setFullYear(born.getFullYear() + ADULT_AGE)
  return comingOfAge <= now
}
