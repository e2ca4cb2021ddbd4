-- Account state and the one-time secrets of the account flows (issue 3).

ALTER TABLE users
  ADD COLUMN disabled_at            timestamptz,
  ADD COLUMN deletion_scheduled_at  timestamptz,
  ADD COLUMN password_changed_at    timestamptz,
  ADD COLUMN phone                  text,
  ADD COLUMN phone_verified_at      timestamptz;
CREATE UNIQUE INDEX users_phone_key ON users (phone) WHERE phone IS NOT NULL;

-- Every secret that is handed out once and used once: MFA tickets, emailed tokens
-- (verify, reset, revert, IP authorization, email and password change), handoff
-- codes. Only the SHA-256 of the secret is kept.
CREATE TABLE one_time_tokens (
  token_hash  bytea PRIMARY KEY,
  kind        text NOT NULL,
  user_id     bigint REFERENCES users (id) ON DELETE CASCADE,
  data        jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX one_time_tokens_user_kind ON one_time_tokens (user_id, kind);

-- Keys that every process of a deployment shares (the sudo token's HMAC key).
CREATE TABLE instance_secrets (
  name        text PRIMARY KEY,
  value       bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
