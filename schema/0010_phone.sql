-- Phone numbers (issue 3): the code texted to a number the user is verifying.
-- The number itself, once proven, lives in users.phone / users.phone_verified_at
-- (0002_accounts.sql). One pending verification per user: a new send replaces it.
CREATE TABLE phone_verifications (
  user_id     bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  -- E.164, as the code was sent to it: the code proves this number only.
  phone       text NOT NULL,
  -- SHA-256 of the 6-digit code; the code itself is never stored.
  code_hash   bytea NOT NULL,
  attempts    integer NOT NULL DEFAULT 0,
  sent_at     timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
