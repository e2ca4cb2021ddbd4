/**
 * Voice regions a channel may pin (`rtc_region`). Operators manage regions
 * through the admin voice routes once those exist; until then these are the
 * regions every deployment offers.
 */
export const RTC_REGIONS = [
  { id: "us-east", name: "US East", emoji: "🇺🇸" },
  { id: "us-west", name: "US West", emoji: "🇺🇸" },
  { id: "europe", name: "Europe", emoji: "🇪🇺" },
  { id: "asia", name: "Asia", emoji: "🌏" }
] as const
