/** A member of a JSON reply, narrowed without casts (a wrong shape fails the test with the body). */
const member = (body: unknown, key: string): unknown => {
  if (typeof body !== "object" || body === null || !(key in body)) throw new Error(`no ${key} in ${JSON.stringify(body)}`)
  return Object.entries(body).find(([name]) => name === key)?.[1]
}

export const numberIn = (body: unknown, key: string): number => {
  const value = member(body, key)
  if (typeof value !== "number") throw new Error(`${key} is not a number in ${JSON.stringify(body)}`)
  return value
}

export const stringsIn = (body: unknown, key: string): Array<string> => {
  const value = member(body, key)
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new Error(`${key} is not a list of strings in ${JSON.stringify(body)}`)
  }
  return value
}
