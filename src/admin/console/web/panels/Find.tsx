import { useState } from "preact/hooks"
import type { Failure } from "../api.ts"
import { plural } from "../format.ts"
import type { PanelProps } from "../panel.ts"
import { GuildSearch, type GuildRow, UserSearch, type UserRow } from "../schemas.ts"
import { GuildCard, UserCard } from "./FindCards.tsx"

type Kind = "guilds" | "users"
type Found =
  | { readonly kind: "guilds"; readonly rows: ReadonlyArray<GuildRow>; readonly total: number }
  | { readonly kind: "users"; readonly rows: ReadonlyArray<UserRow>; readonly total: number }
type Opened = { readonly kind: "guild"; readonly id: string } | { readonly kind: "user"; readonly row: UserRow }

const LIMIT = 10

/** Search guilds (name or id) or users (name, tag, email, id, phone) and open one. */
export const Find = (props: PanelProps) => {
  const { client, can } = props
  const [kind, setKind] = useState<Kind>(can("guild:lookup") ? "guilds" : "users")
  const [query, setQuery] = useState("")
  const [found, setFound] = useState<Found | undefined>(undefined)
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const [opened, setOpened] = useState<Opened | undefined>(undefined)

  const search = async (event: Event) => {
    event.preventDefault()
    const text = query.trim()
    const body = text === "" ? { limit: LIMIT } : { query: text, limit: LIMIT }
    setOpened(undefined)
    const answer = kind === "guilds"
      ? await client.post("/admin/guilds/search", body, GuildSearch).then((r) =>
        r.ok ? { ok: true as const, value: { kind, rows: r.value.guilds, total: r.value.total } } : r
      )
      : await client.post("/admin/users/search", body, UserSearch).then((r) =>
        r.ok ? { ok: true as const, value: { kind, rows: r.value.users, total: r.value.total } } : r
      )
    if (answer.ok) {
      setFound(answer.value)
      setFailure(undefined)
    } else setFailure(answer.failure)
  }

  const choose = (next: Kind) => {
    setKind(next)
    setFound(undefined)
    setOpened(undefined)
  }

  return (
    <div class="stack">
      <form class="search" onSubmit={search}>
        <div class="segmented small">
          {can("guild:lookup") && <button type="button" class={kind === "guilds" ? "active" : ""} onClick={() => choose("guilds")}>Guilds</button>}
          {can("user:lookup") && <button type="button" class={kind === "users" ? "active" : ""} onClick={() => choose("users")}>Users</button>}
        </div>
        <input
          name="query"
          type="search"
          placeholder={kind === "guilds" ? "Guild name or id" : "Username, tag, email, id or phone"}
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
        <button type="submit" class="button primary">Search</button>
      </form>
      {failure !== undefined && <p class="alert">{failure.message} ({failure.code})</p>}
      {opened?.kind === "guild" && <GuildCard {...props} guildId={opened.id} onClose={() => setOpened(undefined)} />}
      {opened?.kind === "user" && <UserCard user={opened.row} onClose={() => setOpened(undefined)} />}
      {opened === undefined && found !== undefined && (
        <div class="results" id="find-results">
          <p class="muted small">{found.total === 0 ? "Nothing found." : `${found.total} found${found.total > found.rows.length ? `, first ${found.rows.length} shown` : ""}`}</p>
          <ul class="list">
            {found.kind === "guilds"
              ? found.rows.map((g) => (
                <li key={g.id}>
                  <div>
                    <div class="strong">{g.name}</div>
                    <div class="mono muted small">{g.id} · {plural(g.member_count, "member")}</div>
                  </div>
                  <button type="button" class="button small" onClick={() => setOpened({ kind: "guild", id: g.id })}>Open</button>
                </li>
              ))
              : found.rows.map((u) => (
                <li key={u.id}>
                  <div>
                    <div class="strong">{u.global_name ?? u.username} <span class="muted">@{u.username}</span></div>
                    <div class="mono muted small">{u.id}{u.email === null ? "" : ` · ${u.email}`}</div>
                  </div>
                  <button type="button" class="button small" onClick={() => setOpened({ kind: "user", row: u })}>Open</button>
                </li>
              ))}
          </ul>
        </div>
      )}
    </div>
  )
}
