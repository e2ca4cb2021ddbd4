import { Effect } from "effect"

/** A process's `/metrics` text, fetched from `url` with `authorization` if given. */
export const scrape = (url: string, authorization?: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, { headers: authorization === undefined ? {} : { authorization } })
    return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() }
  })

/** The value of the sample written exactly `series` (name and labels as the exporter prints them), if there is one. */
export const sample = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

/** The samples of metric `name` (any labels), as printed. */
export const samplesOf = (text: string, name: string): ReadonlyArray<string> =>
  text.split("\n").filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
