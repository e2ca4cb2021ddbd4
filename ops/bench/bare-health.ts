// The floor of the benchmark: a bare node:http server answering GET /_health with the
// same body as Guildhall's, so that the cost of everything else can be measured.
// Env: BARE_PORT (0 or unset: any free port), BARE_BODY (the JSON body to answer),
// BARE_CONTENT_TYPE. Listens on 127.0.0.1 only, and prints one JSON line to stdout,
// {"port": N}, once it listens.
import { createServer } from "node:http"

const body = Buffer.from(process.env["BARE_BODY"] ?? '{"status":"ok"}')
const contentType = process.env["BARE_CONTENT_TYPE"] ?? "application/json"
const port = Number(process.env["BARE_PORT"] ?? 0)

const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/_health") {
    res.writeHead(200, { "content-type": contentType, "content-length": body.length })
    res.end(body)
  } else {
    res.writeHead(404, { "content-length": 0 })
    res.end()
  }
})

server.listen(port, "127.0.0.1", () => {
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("bare-health: no TCP address")
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`)
})

const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
