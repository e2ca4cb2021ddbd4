/**
 * JoinSourceType: how a member came into a guild (member search filters on it). Part C
 * allows 0, 1, 2, 3, 4 and 6 without naming them; these are the meanings Guildhall gives
 * them, one value per way in. 0 is a member with no recorded way in (the owner at creation).
 */
export const JOIN_SOURCE_INSTANT_INVITE = 1
export const JOIN_SOURCE_VANITY_URL = 2
export const JOIN_SOURCE_DISCOVERY = 3
export const JOIN_SOURCE_BOT_INVITE = 4
