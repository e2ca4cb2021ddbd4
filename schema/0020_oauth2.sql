-- OAuth2 applications and their bots (part A). Every application has a bot: a
-- users row flagged `bot` whose id is the application's id, as clients expect
-- of a bot, so a bot token `<application id>.<secret>` names both at once.
CREATE TABLE applications (
  id                      bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  owner_id                bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name                    text NOT NULL,
  bot_public              boolean NOT NULL DEFAULT true,
  bot_require_code_grant  boolean NOT NULL DEFAULT false,
  redirect_uris           text[] NOT NULL DEFAULT '{}',
  -- BotFlags: FRIENDLY_BOT 16, FRIENDLY_BOT_MANUAL_APPROVAL 32.
  bot_flags               integer NOT NULL DEFAULT 0,
  -- argon2id of the client secret and of the bot token's secret part (conventions.md);
  -- each is shown once, when made.
  client_secret_hash      text NOT NULL,
  bot_token_hash          text NOT NULL,
  created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX applications_owner ON applications (owner_id);

-- A code consent handed out, exchanged once at POST /oauth2/token before it
-- expires. Only its SHA-256 is kept.
CREATE TABLE oauth2_codes (
  code_hash              bytea PRIMARY KEY,
  application_id         bigint NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  user_id                bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  redirect_uri           text NOT NULL,
  scopes                 text[] NOT NULL,
  -- PKCE (RFC 7636): the challenge and its method, S256 or plain.
  code_challenge         text,
  code_challenge_method  text,
  expires_at             timestamptz NOT NULL
);

-- An access token and the refresh token issued with it (SHA-256 of each). A
-- refresh replaces the row; `authorized_at` is the first grant's, carried over.
CREATE TABLE oauth2_tokens (
  access_hash     bytea PRIMARY KEY,
  refresh_hash    bytea NOT NULL UNIQUE,
  application_id  bigint NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  user_id         bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  scopes          text[] NOT NULL,
  authorized_at   timestamptz NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL
);
CREATE INDEX oauth2_tokens_user ON oauth2_tokens (user_id, application_id);
