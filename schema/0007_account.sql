-- Email change, password change and device handoff (issue 3, account and sessions slice).
-- Every secret (ticket, code, proof) is kept as its SHA-256 only.

-- The mail to the account's address bounced: the owner may then change the
-- address without proving the old one (POST /users/@me/email-change/bounced/*).
-- Nothing in the server sets it yet; an operator does, after a bounce report:
--   UPDATE users SET email_bounced = true WHERE lower(email) = lower('...');
ALTER TABLE users ADD COLUMN email_bounced boolean NOT NULL DEFAULT false;

-- One email change under way. `require_original`: the current address is
-- verified, so a code goes there first; its proof (original_proof_hash) is then
-- needed to name the new address, whose own code completes the change.
-- `bounced`: the old address is skipped (it bounces).
CREATE TABLE email_change_tickets (
  ticket_hash               bytea PRIMARY KEY,
  user_id                   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  bounced                   boolean NOT NULL DEFAULT false,
  require_original          boolean NOT NULL,
  original_email            text,
  original_code_hash        bytea,
  original_code_expires_at  timestamptz,
  original_sent_at          timestamptz,
  original_proof_hash       bytea,
  new_email                 text,
  new_code_hash             bytea,
  new_code_expires_at       timestamptz,
  new_sent_at               timestamptz,
  failed_attempts           integer NOT NULL DEFAULT 0,
  created_at                timestamptz NOT NULL DEFAULT now(),
  expires_at                timestamptz NOT NULL,
  completed_at              timestamptz
);
CREATE INDEX email_change_tickets_user ON email_change_tickets (user_id, created_at);

-- One password change under way: an emailed code, then a proof that the code
-- was entered, then the new password.
CREATE TABLE password_change_tickets (
  ticket_hash      bytea PRIMARY KEY,
  user_id          bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash        bytea,
  code_expires_at  timestamptz,
  sent_at          timestamptz,
  proof_hash       bytea,
  failed_attempts  integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  completed_at     timestamptz
);
CREATE INDEX password_change_tickets_user ON password_change_tickets (user_id, created_at);

-- Device handoff: a new device asks for a code (pending), a signed-in device
-- enters it (completed: user_id set), the new device's next poll receives a
-- fresh session of its own (delivered). No session token is ever stored here.
CREATE TABLE auth_handoffs (
  code_hash     bytea PRIMARY KEY,
  client_ip     text,
  user_agent    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  user_id       bigint REFERENCES users (id) ON DELETE CASCADE,
  completed_at  timestamptz,
  delivered_at  timestamptz
);
CREATE INDEX auth_handoffs_expires ON auth_handoffs (expires_at);
