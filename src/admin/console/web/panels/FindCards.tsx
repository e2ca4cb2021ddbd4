import { reloadGuild, shutdownGuild } from "../guildActions.ts"
import { dateTime } from "../format.ts"
import type { PanelProps } from "../panel.ts"
import { GuildLookup, type UserRow } from "../schemas.ts"
import { usePolled } from "../usePolled.ts"

const Facts = (props: { readonly rows: ReadonlyArray<readonly [string, string]> }) => (
  <dl class="facts">
    {props.rows.map(([term, value]) => (
      <div key={term}>
        <dt>{term}</dt>
        <dd>{value}</dd>
      </div>
    ))}
  </dl>
)

/** One guild as `POST /admin/guilds/lookup` gives it, with its actor's commands. */
export const GuildCard = (props: PanelProps & { readonly guildId: string; readonly onClose: () => void }) => {
  const { client, can, act, guildId } = props
  const answer = usePolled(0, () => client.post("/admin/guilds/lookup", { guild_id: guildId }, GuildLookup))
  const guild = answer?.ok === true ? answer.value.guild : undefined
  return (
    <article class="card" id="opened-guild">
      <header class="card-head">
        <h3>{guild?.name ?? `Guild ${guildId}`}</h3>
        <button type="button" class="button ghost small" onClick={props.onClose}>Back to results</button>
      </header>
      {answer === undefined && <p class="muted">Loading…</p>}
      {answer?.ok === false && <p class="alert">{answer.failure.message} ({answer.failure.code})</p>}
      {answer?.ok === true && guild === null && <p class="alert">No such guild.</p>}
      {guild != null && (
        <>
          <Facts
            rows={[
              ["Id", guild.id],
              ["Owner", guild.owner_id],
              ["Members", String(guild.member_count)],
              ["Channels · roles", `${guild.channels.length} · ${guild.roles.length}`],
              ["Vanity URL", guild.vanity_url_code ?? "none"],
              ["Features", guild.features.length === 0 ? "none" : guild.features.join(", ")]
            ]}
          />
          <div class="row">
            {can("guild:reload") && <button type="button" class="button" onClick={() => act(reloadGuild(client, guild.id, guild.name))}>Reload actor</button>}
            {can("guild:shutdown") && (
              <button type="button" class="button danger-outline" onClick={() => act(shutdownGuild(client, guild.id, guild.name))}>Shut down actor</button>
            )}
          </div>
        </>
      )}
    </article>
  )
}

/** One user as the admin search gives them. */
export const UserCard = (props: { readonly user: UserRow; readonly onClose: () => void }) => {
  const u = props.user
  return (
    <article class="card" id="opened-user">
      <header class="card-head">
        <h3>{u.global_name ?? u.username}</h3>
        <button type="button" class="button ghost small" onClick={props.onClose}>Back to results</button>
      </header>
      <Facts
        rows={[
          ["Id", u.id],
          ["Username", `${u.username}${u.discriminator === 0 ? "" : `#${String(u.discriminator).padStart(4, "0")}`}`],
          ["Email", u.email ?? "none"],
          ["Kind", u.bot ? "bot" : "person"],
          ["Flags", u.flags],
          ["ACLs", u.acls.length === 0 ? "none" : u.acls.join(", ")],
          ["Banned until", u.temp_banned_until === null ? "not banned" : dateTime(u.temp_banned_until)],
          ["Last active", u.last_active_at === null ? "unknown" : dateTime(u.last_active_at)]
        ]}
      />
    </article>
  )
}
