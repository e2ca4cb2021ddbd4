-- IP authorization (conventions.md): a password login from an address the user
-- has never logged in from waits until the emailed link is opened.

-- The addresses each user has logged in from (every way in records it).
CREATE TABLE user_known_ips (
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  ip          text NOT NULL,
  first_seen  timestamptz NOT NULL DEFAULT now(),
  last_seen   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, ip)
);

-- A login waiting for IP authorization. The waiting client holds the ticket
-- (poll, resend); the email carries the token (authorize-ip). Only SHA-256
-- hashes are kept. pending: completed_at NULL; completed: the token was used;
-- consumed: the poll handed out the session (a ticket completes one login).
CREATE TABLE ip_authorizations (
  ticket_hash   bytea PRIMARY KEY,
  token_hash    bytea NOT NULL UNIQUE,
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  ip            text NOT NULL,
  sends         integer NOT NULL DEFAULT 1,
  last_sent_at  timestamptz NOT NULL DEFAULT now(),
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  completed_at  timestamptz,
  consumed_at   timestamptz
);
CREATE INDEX ip_authorizations_user_ip ON ip_authorizations (user_id, ip);
CREATE INDEX ip_authorizations_expires ON ip_authorizations (expires_at);
