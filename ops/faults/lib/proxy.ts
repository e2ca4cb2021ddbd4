// A TCP proxy of the fault suite's own, put between an API process and a shard process to cut
// the network between them: `drop` resets every connection and refuses new ones, `stall`
// keeps them open but forwards nothing (a partition: nothing tells the sender, and what it
// sent arrives late, as TCP delivers it once the link heals), `pass` forwards again.
import { createConnection, createServer, type Socket } from "node:net"
import { freePort } from "../../bench/scratch-server.ts"

export type ProxyMode = "pass" | "drop" | "stall"

export interface TcpProxy {
  readonly port: number
  readonly setMode: (mode: ProxyMode) => void
  readonly close: () => Promise<void>
}

interface Link {
  readonly client: Socket
  readonly upstream: Socket
  /** What arrived while stalled, per direction, delivered in order when the link heals. */
  readonly held: { readonly up: Array<Buffer>; readonly down: Array<Buffer> }
}

export const tcpProxy = async (targetPort: number, listenPort?: number): Promise<TcpProxy> => {
  let mode: ProxyMode = "pass"
  const links = new Set<Link>()
  const flush = (link: Link) => {
    for (const chunk of link.held.up.splice(0)) link.upstream.write(chunk)
    for (const chunk of link.held.down.splice(0)) link.client.write(chunk)
  }
  const server = createServer((client) => {
    if (mode === "drop") return client.resetAndDestroy()
    const upstream = createConnection({ host: "127.0.0.1", port: targetPort })
    const link: Link = { client, upstream, held: { up: [], down: [] } }
    links.add(link)
    const forget = () => {
      links.delete(link)
      client.destroy()
      upstream.destroy()
    }
    client.on("error", forget).on("close", forget)
    upstream.on("error", forget).on("close", forget)
    client.on("data", (chunk: Buffer) => mode === "pass" ? upstream.write(chunk) : link.held.up.push(chunk))
    upstream.on("data", (chunk: Buffer) => mode === "pass" ? client.write(chunk) : link.held.down.push(chunk))
  })
  const port = listenPort ?? await freePort()
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return {
    port,
    setMode: (next) => {
      mode = next
      for (const link of links) {
        if (next === "drop") link.client.resetAndDestroy(), link.upstream.resetAndDestroy()
        else if (next === "pass") flush(link)
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const link of links) link.client.destroy(), link.upstream.destroy()
        server.close(() => resolve())
      })
  }
}
