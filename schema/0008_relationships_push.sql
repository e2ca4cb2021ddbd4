-- Relationships and Web Push subscriptions (issue 3).

-- One row per side: user_id's view of target_id. Types as the API shows them:
-- 1 friend, 2 blocked, 3 incoming request, 4 outgoing request. A request is an
-- outgoing row on one side and an incoming row on the other; both sides of a
-- change are written in one transaction. The sides may differ on purpose: an
-- ignored request or a block leaves the other side's row as it was, so the
-- other user is not told.
CREATE TABLE relationships (
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  target_id  bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type       smallint NOT NULL CHECK (type BETWEEN 1 AND 4),
  -- What user_id calls a friend; only friends have one.
  nickname   text,
  since      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, target_id),
  CHECK (user_id <> target_id)
);
CREATE INDEX relationships_target ON relationships (target_id);

-- A browser's Web Push subscription (endpoint URL and the keys that encrypt
-- for it). It belongs to the session that made it: signing that session out
-- stops the device's notifications.
CREATE TABLE push_subscriptions (
  id            text PRIMARY KEY,
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_hash  bytea NOT NULL REFERENCES sessions (token_hash) ON DELETE CASCADE,
  endpoint      text NOT NULL,
  p256dh        text NOT NULL,
  auth          text NOT NULL,
  user_agent    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, endpoint)
);
CREATE INDEX push_subscriptions_session ON push_subscriptions (session_hash);
