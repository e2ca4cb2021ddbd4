import { isIPv4, isIPv6 } from "node:net"

/** What the session list tells about a device, read from the user agent it logged in with. */
export interface ClientInfo {
  readonly browser: string | null
  readonly os: string | null
  readonly platform: "Desktop" | "Mobile" | "Tablet" | null
}

type Rule = readonly [pattern: RegExp, name: string]

/*
 * Order matters: most browsers claim to be several others ("Chrome ... Safari",
 * "Edg ... Chrome"), so the ones that add a token of their own come first.
 */
const browsers: ReadonlyArray<Rule> = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bVivaldi\//, "Vivaldi"],
  [/\bYaBrowser\//, "Yandex Browser"],
  [/\bElectron\//, "Electron"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChromium\//, "Chromium"],
  [/\bChrome\/|\bCriOS\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\/|\bAppleWebKit\/.*\bMobile\/\w+$/, "Safari"],
  [/\bMSIE \d|\bTrident\//, "Internet Explorer"]
]

/* iOS user agents say "like Mac OS X", Android ones "Linux": the specific ones first. */
const systems: ReadonlyArray<Rule> = [
  [/\bWindows\b/, "Windows"],
  [/\biPhone\b|\biPad\b|\biPod\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bMacintosh\b|\bMac OS X\b/, "macOS"],
  [/\bLinux\b|\bX11\b/, "Linux"]
]

const first = (rules: ReadonlyArray<Rule>, userAgent: string): string | null =>
  rules.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null

const platformOf = (userAgent: string, os: string | null): ClientInfo["platform"] => {
  if (/\biPad\b|\bTablet\b/.test(userAgent) || (os === "Android" && !/\bMobile\b/.test(userAgent))) return "Tablet"
  if (os === "iOS" || os === "Android" || /\bMobi/.test(userAgent)) return "Mobile"
  if (os !== null) return "Desktop"
  return null
}

/**
 * Browser, OS and kind of device from a user agent string. Covers the common
 * browsers and systems; anything else (an HTTP library, a bot) reads as null
 * rather than a guess.
 */
export const parseUserAgent = (userAgent: string | null): ClientInfo => {
  if (userAgent === null || userAgent.length === 0) return { browser: null, os: null, platform: null }
  const os = first(systems, userAgent)
  return { browser: first(browsers, userAgent), os, platform: platformOf(userAgent, os) }
}

const expandIPv6 = (address: string): Array<string> => {
  const [head = "", tail] = address.split("::")
  const left = head === "" ? [] : head.split(":")
  const right = tail === undefined || tail === "" ? [] : tail.split(":")
  return [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
}

/**
 * An address with its host part hidden, enough to tell networks apart: the
 * first three octets of IPv4 (a /24), the first four groups of IPv6 (a /64).
 */
export const maskIp = (ip: string | null): string | null => {
  if (ip === null) return null
  const plain = ip.startsWith("::ffff:") && isIPv4(ip.slice(7)) ? ip.slice(7) : ip
  if (isIPv4(plain)) return `${plain.split(".").slice(0, 3).join(".")}.*`
  if (isIPv6(plain)) return `${expandIPv6(plain.split("%")[0] ?? plain).slice(0, 4).join(":")}:*`
  return null
}
