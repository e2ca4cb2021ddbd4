-- Accounts, sessions, operators, guilds and the bookkeeping of actor writes.
-- Snowflakes are bigint; the API serializes them as decimal strings.

CREATE TABLE users (
  id              bigint PRIMARY KEY,
  username        text NOT NULL,
  discriminator   text NOT NULL,
  global_name     text,
  email           text,
  email_verified  boolean NOT NULL DEFAULT false,
  password_hash   text,
  date_of_birth   date,
  avatar          text,
  banner          text,
  bio             text,
  pronouns        text,
  accent_color    integer,
  flags           bigint NOT NULL DEFAULT 0,
  acls            text[] NOT NULL DEFAULT '{}',
  traits          text[] NOT NULL DEFAULT '{}',
  locale          text NOT NULL DEFAULT 'en-US',
  theme           text NOT NULL DEFAULT 'system',
  bot             boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email)) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX users_tag_key ON users (lower(username), discriminator);

CREATE TABLE sessions (
  token_hash    bytea PRIMARY KEY,
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  client_ip     text,
  user_agent    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_user_id ON sessions (user_id);

CREATE TABLE admin_api_keys (
  id          bigint PRIMARY KEY,
  name        text NOT NULL,
  key_hash    bytea NOT NULL UNIQUE,
  acls        text[] NOT NULL,
  created_by  bigint,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz
);

CREATE TABLE admin_audit_logs (
  id                bigint PRIMARY KEY,
  admin_user_id     bigint NOT NULL,
  action            text NOT NULL,
  target_type       text NOT NULL,
  target_id         text NOT NULL,
  audit_log_reason  text,
  metadata          jsonb NOT NULL DEFAULT '{}',
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX admin_audit_logs_created ON admin_audit_logs (created_at DESC, id DESC);

CREATE TABLE guilds (
  id                             bigint PRIMARY KEY,
  name                           text NOT NULL,
  icon                           text,
  banner                         text,
  splash                         text,
  embed_splash                   text,
  splash_card_alignment          integer NOT NULL DEFAULT 0,
  owner_id                       bigint NOT NULL REFERENCES users (id),
  system_channel_id              bigint,
  system_channel_flags           integer NOT NULL DEFAULT 0,
  rules_channel_id               bigint,
  afk_channel_id                 bigint,
  afk_timeout                    integer NOT NULL DEFAULT 300,
  features                       text[] NOT NULL DEFAULT '{}',
  verification_level             integer NOT NULL DEFAULT 0,
  mfa_level                      integer NOT NULL DEFAULT 0,
  nsfw_level                     integer NOT NULL DEFAULT 0,
  nsfw                           boolean NOT NULL DEFAULT false,
  content_warning_level          integer NOT NULL DEFAULT 0,
  content_warning_text           text,
  explicit_content_filter        integer NOT NULL DEFAULT 0,
  default_message_notifications  integer NOT NULL DEFAULT 0,
  disabled_operations            integer NOT NULL DEFAULT 0,
  message_history_cutoff         timestamptz,
  vanity_url_code                text UNIQUE,
  created_at                     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE guild_roles (
  id           bigint PRIMARY KEY,
  guild_id     bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  name         text NOT NULL,
  permissions  bigint NOT NULL DEFAULT 0,
  position     integer NOT NULL DEFAULT 0,
  color        integer NOT NULL DEFAULT 0,
  hoist        boolean NOT NULL DEFAULT false,
  mentionable  boolean NOT NULL DEFAULT false
);
CREATE INDEX guild_roles_guild ON guild_roles (guild_id);

CREATE TABLE channels (
  id          bigint PRIMARY KEY,
  guild_id    bigint REFERENCES guilds (id) ON DELETE CASCADE,
  type        integer NOT NULL,
  name        text,
  topic       text,
  position    integer NOT NULL DEFAULT 0,
  parent_id   bigint,
  nsfw        boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX channels_guild ON channels (guild_id);

CREATE TABLE guild_members (
  guild_id   bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  nick       text,
  roles      bigint[] NOT NULL DEFAULT '{}',
  joined_at  timestamptz NOT NULL DEFAULT now(),
  mute       boolean NOT NULL DEFAULT false,
  deaf       boolean NOT NULL DEFAULT false,
  PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX guild_members_user ON guild_members (user_id);

-- The first result of every actor write, so that a write delivered again
-- (its runner died before answering) returns that result instead of acting twice.
CREATE TABLE actor_operations (
  operation_id  text PRIMARY KEY,
  entity_id     text NOT NULL,
  result        jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
