import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import { clientAddress, formatNetwork, networkSet, normalizeAddress, parseAddress, parseNetwork } from "../../../src/platform/IpAddress.ts"
import { AppConfig, settingsConfig } from "../../../src/platform/Config.ts"
import { ReverseDns } from "../../../src/platform/ReverseDns.ts"
import { FakeDns } from "../../support/FakeDns.ts"

const canonical = (text: string) => {
  const parsed = parseNetwork(text)
  return parsed === undefined ? undefined : formatNetwork(parsed)
}
const set = (...ranges: Array<string>) => networkSet(ranges.flatMap((r) => parseNetwork(r) ?? []))

describe("IP addresses and ranges", () => {
  it("reads addresses and ranges into one canonical text, and refuses junk", () => {
    assert.strictEqual(canonical("1.2.3.4"), "1.2.3.4")
    assert.strictEqual(canonical("::ffff:1.2.3.4"), "1.2.3.4")
    assert.strictEqual(canonical("::FFFF:0102:0304"), "1.2.3.4")
    assert.strictEqual(canonical("10.1.2.3/8"), "10.0.0.0/8")
    assert.strictEqual(canonical("::ffff:10.1.2.3/104"), "10.0.0.0/8")
    assert.strictEqual(canonical("2001:0DB8:0000:0000:0000:0000:0000:0001"), "2001:db8::1")
    assert.strictEqual(canonical("2001:db8:0:1:0:0:0:1"), "2001:db8:0:1::1")
    assert.strictEqual(canonical("2001:db8::/32"), "2001:db8::/32")
    assert.strictEqual(canonical("[2001:db8::1]"), "2001:db8::1")
    assert.strictEqual(canonical("fe80::1%eth0"), "fe80::1")
    assert.strictEqual(canonical("1.2.3.4/32"), "1.2.3.4")
    assert.strictEqual(canonical("0.0.0.0/0"), "0.0.0.0/0")
    for (const junk of ["", "1.2.3", "1.2.3.256", "01.2.3.4", "1.2.3.4/33", "1.2.3.4/-1", "1.2.3.4/", "::/129", "example.com", "1.2.3.4/8/8", "gggg::1"]) {
      assert.isUndefined(parseNetwork(junk), junk)
    }
  })

  it("a set of ranges holds the addresses inside them only, IPv4-mapped ones included", () => {
    const banned = set("198.51.100.0/24", "2001:db8::/32", "192.0.2.7")
    const holds = (a: string) => banned.holds(parseAddress(a) ?? { family: 4, network: 0n, prefix: 32 })
    assert.isTrue(holds("198.51.100.0"))
    assert.isTrue(holds("198.51.100.255"))
    assert.isTrue(holds("::ffff:198.51.100.9"))
    assert.isFalse(holds("198.51.101.0"))
    assert.isTrue(holds("2001:db8:ffff::1"))
    assert.isFalse(holds("2001:db9::1"))
    assert.isTrue(holds("192.0.2.7"))
    assert.isFalse(holds("192.0.2.8"))
    assert.strictEqual(banned.size, 3)
  })

  it("the client is the socket's address, or behind trusted proxies the right-most untrusted forwarded one", () => {
    const trusted = set("127.0.0.1", "10.0.0.0/8")
    assert.strictEqual(clientAddress("::ffff:203.0.113.1", "198.51.100.1", trusted), "203.0.113.1")
    assert.strictEqual(clientAddress("127.0.0.1", undefined, trusted), "127.0.0.1")
    assert.strictEqual(clientAddress("127.0.0.1", "198.51.100.1", trusted), "198.51.100.1")
    // What the client wrote itself (left of what the proxies appended) is not believed.
    assert.strictEqual(clientAddress("127.0.0.1", "6.6.6.6, 198.51.100.1, 10.0.0.2", trusted), "198.51.100.1")
    assert.strictEqual(clientAddress("127.0.0.1", "junk, 198.51.100.1", trusted), "198.51.100.1")
    assert.strictEqual(clientAddress("127.0.0.1", "198.51.100.1, junk", trusted), "127.0.0.1")
    assert.strictEqual(clientAddress("127.0.0.1", "10.0.0.3, 10.0.0.2", trusted), "10.0.0.3")
    assert.strictEqual(clientAddress("127.0.0.1", "[2001:db8::1]", trusted), "2001:db8::1")
    assert.strictEqual(clientAddress("127.0.0.1", "198.51.100.1", networkSet([])), "127.0.0.1")
    assert.isUndefined(clientAddress(undefined, "198.51.100.1", trusted))
    assert.strictEqual(normalizeAddress("::ffff:127.0.0.1"), "127.0.0.1")
  })
})

describe("TRUSTED_PROXIES and DNS_SERVER", () => {
  const read = (env: Record<string, string>) => settingsConfig.parse(ConfigProvider.fromUnknown(env))

  it.effect("are read at start, and a wrong value stops it with a message naming the setting", () =>
    Effect.gen(function*() {
      const good = yield* read({ TRUSTED_PROXIES: "10.0.0.0/8, ::1 ,192.168.1.1", DNS_SERVER: "[::1]:5353" })
      assert.deepStrictEqual(good.trustedProxies.map(formatNetwork), ["10.0.0.0/8", "::1", "192.168.1.1"])
      assert.deepStrictEqual(good.dnsServer, Option.some("[::1]:5353"))
      const unset = yield* read({})
      assert.deepStrictEqual(unset.trustedProxies, [])
      assert.isTrue(Option.isNone(unset.dnsServer))
      for (const server of ["127.0.0.1", "127.0.0.1:53", "::1"]) assert.isTrue(Option.isSome((yield* read({ DNS_SERVER: server })).dnsServer))

      const badProxy = yield* Effect.flip(read({ TRUSTED_PROXIES: "10.0.0.0/8, proxy.internal" }))
      assert.include(String(badProxy), "TRUSTED_PROXIES: proxy.internal is not an IP address or CIDR range")
      for (const server of ["dns.example.com", "1.2.3.4:99999", "1.2.3.4:"]) {
        const badDns = yield* Effect.flip(read({ DNS_SERVER: server }))
        assert.include(String(badDns), "DNS_SERVER")
      }
    }))
})

const dns = FakeDns.layer({ "192.0.2.10": "ten.example.test", "2001:db8::10": "six.example.test" })
const reverseDns = Layer.unwrap(Effect.map(FakeDns, (fake) =>
  ReverseDns.layer.pipe(Layer.provide(AppConfig.layerWith({ dnsServer: Option.some(fake.server) })))))

describe("ReverseDns", () => {
  it.live("asks the configured server for PTR records over UDP; no name, or no answer in time, is null", () =>
    Effect.gen(function*() {
      const lookups = yield* ReverseDns
      assert.strictEqual(yield* lookups.lookup("192.0.2.10"), "ten.example.test")
      assert.strictEqual(yield* lookups.lookup("2001:db8::10"), "six.example.test")
      assert.isNull(yield* lookups.lookup("192.0.2.11"))
      const fake = yield* FakeDns
      assert.include(fake.asked, "10.2.0.192.in-addr.arpa")
    }).pipe(Effect.provide(reverseDns.pipe(Layer.provideMerge(dns)))), { timeout: 30_000 })

  it.live("a server that never answers gives null within the bound", () =>
    Effect.gen(function*() {
      const lookups = yield* ReverseDns
      const started = Date.now()
      // Nothing listens on port 9 of this host (discard): the query goes unanswered or is refused.
      assert.isNull(yield* lookups.lookup("192.0.2.12"))
      assert.isBelow(Date.now() - started, 3_000)
    }).pipe(Effect.provide(ReverseDns.layer.pipe(Layer.provide(AppConfig.layerWith({ dnsServer: Option.some("127.0.0.1:9") }))))), { timeout: 30_000 })
})
