import { randomBytes } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"

/**
 * Writes one outgoing message as a file of `directory` (the outbox of a deployment that
 * sends no mail or texts), named so `ls` sorts it by time. Two messages to one address in
 * the same millisecond, from any process, still get two names.
 */
export const writeOutboxFile = async (directory: string, label: string, body: string): Promise<void> => {
  await Fs.mkdir(directory, { recursive: true })
  const unique = randomBytes(4).toString("hex")
  const name = `${new Date().toISOString().replaceAll(":", "-")}-${unique}-${label}.txt`
  await Fs.writeFile(Path.join(directory, name), body, { flag: "wx" })
}
