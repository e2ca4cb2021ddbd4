import { Context, Effect, Layer } from "effect"
import { createSocket } from "node:dgram"

/**
 * A DNS server on a local UDP port that answers PTR questions from a fixed
 * table and TXT questions from one a test fills as it goes, so reverse lookups
 * and domain proofs are tested over real sockets without the internet. It
 * knows only what those queries need (RFC 1035, 4.1): the header, one
 * question, and answers whose name points back at the question.
 */
export class FakeDns extends Context.Service<FakeDns, {
  /** `127.0.0.1:port`, as DNS_SERVER takes it. */
  readonly server: string
  /** The questions it was asked, by name. */
  readonly asked: ReadonlyArray<string>
  /** From now on, `name` has these TXT records (none: the name is unknown to TXT questions). */
  readonly setTxt: (name: string, records: ReadonlyArray<string>) => void
}>()("test/FakeDns") {
  /** Serves `names`: address (IPv4 or IPv6, any form `ptrName` reads) -> host name. */
  static readonly layer = (names: Record<string, string>) =>
    Layer.effect(
      FakeDns,
      Effect.gen(function*() {
        const table = new Map(Object.entries(names).map(([address, host]) => [ptrName(address), host]))
        const txt = new Map<string, ReadonlyArray<string>>()
        const asked: Array<string> = []
        const socket = yield* Effect.acquireRelease(
          Effect.promise(() =>
            new Promise<ReturnType<typeof createSocket>>((resolve) => {
              const s = createSocket("udp4")
              s.bind(0, "127.0.0.1", () => resolve(s))
            })
          ),
          (s) => Effect.sync(() => s.close())
        )
        socket.on("message", (packet, from) => {
          const query = decodeQuery(packet)
          if (query === undefined) return
          asked.push(query.name)
          const name = query.name.toLowerCase()
          if (query.type === TXT) {
            socket.send(encodeTxtAnswer(packet, query, txt.get(name) ?? []), from.port, from.address)
            return
          }
          const host = query.type === PTR ? table.get(name) : undefined
          socket.send(encodeAnswer(packet, query, host), from.port, from.address)
        })
        return {
          server: `127.0.0.1:${socket.address().port}`,
          asked,
          setTxt: (name, records) => {
            if (records.length === 0) txt.delete(name.toLowerCase())
            else txt.set(name.toLowerCase(), records)
          }
        }
      })
    )
}

const PTR = 12
const TXT = 16

/** The name a reverse lookup of `address` asks: `4.3.2.1.in-addr.arpa` or nibbles under `ip6.arpa`. */
export const ptrName = (address: string): string => {
  if (address.includes(".") && !address.includes(":")) return `${address.split(".").reverse().join(".")}.in-addr.arpa`
  const [head = "", tail = ""] = address.split("::")
  const groups = (part: string) => (part === "" ? [] : part.split(":"))
  const left = groups(head)
  const right = groups(tail)
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
  const nibbles = all.map((g) => g.padStart(4, "0")).join("").split("")
  return `${nibbles.reverse().join(".")}.ip6.arpa`
}

interface Query {
  readonly name: string
  readonly type: number
  /** Where the question ends: the answer repeats the header and question up to here. */
  readonly end: number
}

export const decodeQuery = (packet: Buffer): Query | undefined => {
  if (packet.length < 12 || packet.readUInt16BE(4) !== 1) return undefined
  const labels: Array<string> = []
  let at = 12
  while (at < packet.length) {
    const length = packet[at] ?? 0
    at++
    if (length === 0) break
    // Queries name their question in full; a pointer (two high bits set) is not expected here.
    if (length >= 0xc0) return undefined
    labels.push(packet.subarray(at, at + length).toString("ascii"))
    at += length
  }
  if (at + 4 > packet.length) return undefined
  return { name: labels.join("."), type: packet.readUInt16BE(at), end: at + 4 }
}

const encodeName = (name: string): Buffer =>
  Buffer.concat([
    ...name.split(".").filter((l) => l.length > 0).map((label) =>
      Buffer.concat([Buffer.from([label.length]), Buffer.from(label, "ascii")])),
    Buffer.from([0])
  ])

/** The question echoed with answers of `type` (one per rdata), or NXDOMAIN (rcode 3) when there are none. */
const encodeAnswers = (packet: Buffer, query: Query, type: number, rdatas: ReadonlyArray<Buffer>): Buffer => {
  const header = Buffer.from(packet.subarray(0, 12))
  const recursionDesired = (packet.readUInt16BE(2) & 0x0100) !== 0
  header.writeUInt16BE(0x8000 | 0x0400 | (recursionDesired ? 0x0100 : 0) | 0x0080 | (rdatas.length === 0 ? 3 : 0), 2)
  header.writeUInt16BE(1, 4)
  header.writeUInt16BE(rdatas.length, 6)
  header.writeUInt16BE(0, 8)
  header.writeUInt16BE(0, 10)
  const question = packet.subarray(12, query.end)
  const answers = rdatas.map((rdata) => {
    const answer = Buffer.alloc(12)
    answer.writeUInt16BE(0xc00c, 0) // the name: a pointer to the question's, at offset 12
    answer.writeUInt16BE(type, 2)
    answer.writeUInt16BE(1, 4) // class IN
    answer.writeUInt32BE(60, 6) // TTL
    answer.writeUInt16BE(rdata.length, 10)
    return Buffer.concat([answer, rdata])
  })
  return Buffer.concat([header, question, ...answers])
}

/** The question echoed, with one PTR answer, or NXDOMAIN (rcode 3) when the table has no name. */
export const encodeAnswer = (packet: Buffer, query: Query, host: string | undefined): Buffer =>
  encodeAnswers(packet, query, PTR, host === undefined ? [] : [encodeName(host)])

/** A TXT record's data: its text as character-strings of at most 255 bytes each (RFC 1035, 3.3.14). */
const txtData = (text: string): Buffer => {
  const bytes = Buffer.from(text, "utf8")
  const parts: Array<Buffer> = []
  for (let at = 0; at < bytes.length || parts.length === 0; at += 255) {
    const chunk = bytes.subarray(at, at + 255)
    parts.push(Buffer.from([chunk.length]), chunk)
  }
  return Buffer.concat(parts)
}

/** The question echoed, with one TXT answer per record, or NXDOMAIN when there are none. */
export const encodeTxtAnswer = (packet: Buffer, query: Query, records: ReadonlyArray<string>): Buffer =>
  encodeAnswers(packet, query, TXT, records.map(txtData))
