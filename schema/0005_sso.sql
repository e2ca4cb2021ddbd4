-- Single sign-on with one OpenID Connect provider (issue 3): the operator's
-- settings (one row, edited through /admin/instance-config/update) and the
-- link between a provider identity (issuer, subject) and a user.

CREATE TABLE sso_settings (
  singleton          boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  enabled            boolean NOT NULL DEFAULT false,
  enforced           boolean NOT NULL DEFAULT false,
  display_name       text,
  issuer             text,
  authorization_url  text,
  token_url          text,
  userinfo_url       text,
  jwks_url           text,
  client_id          text,
  -- Never sent back to anyone: the admin API only says whether it is set.
  client_secret      text,
  scope              text,
  allowed_domains    text[] NOT NULL DEFAULT '{}',
  auto_provision     boolean NOT NULL DEFAULT false,
  redirect_uri       text,
  updated_at         timestamptz NOT NULL DEFAULT now()
);
INSERT INTO sso_settings DEFAULT VALUES;

-- A user has at most one identity per provider; an identity belongs to one user.
CREATE TABLE sso_identities (
  issuer         text NOT NULL,
  subject        text NOT NULL,
  user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  email          text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_login_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject),
  UNIQUE (issuer, user_id)
);
CREATE INDEX sso_identities_user ON sso_identities (user_id);
