-- Multi-factor authentication (issue 3): TOTP, SMS codes, backup codes and
-- WebAuthn credentials (security keys, passkeys).

-- One row per user who ever enrolled TOTP or SMS.
CREATE TABLE user_mfa (
  user_id          bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  -- Base32, as the authenticator app has it; NULL while TOTP is off.
  totp_secret      text,
  totp_enabled_at  timestamptz,
  -- The last time step a code was accepted for: a code of that step or an
  -- older one is refused (conventions.md: a used code cannot be replayed).
  totp_last_step   bigint,
  -- SMS codes to the verified phone (users.phone, users.phone_verified_at).
  sms_enabled_at   timestamptz
);

-- 10 single-use codes `xxxx-xxxx`; shown again on request, so kept as they are.
CREATE TABLE mfa_backup_codes (
  user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code         text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  consumed_at  timestamptz,
  PRIMARY KEY (user_id, code)
);

-- The live SMS code of a user for one purpose (login, sudo); only its SHA-256.
CREATE TABLE mfa_sms_codes (
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose     text NOT NULL,
  code_hash   bytea NOT NULL,
  attempts    integer NOT NULL DEFAULT 0,
  sent_at     timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (user_id, purpose)
);

CREATE TABLE webauthn_credentials (
  -- The authenticator's credential id, base64url: what clients name it by.
  credential_id  text PRIMARY KEY,
  user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- COSE-encoded public key.
  public_key     bytea NOT NULL,
  -- Signature counter: an assertion must raise it (a cloned key would not).
  counter        bigint NOT NULL DEFAULT 0,
  transports     text[] NOT NULL DEFAULT '{}',
  name           text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_used_at   timestamptz
);
CREATE INDEX webauthn_credentials_user ON webauthn_credentials (user_id);
