-- Account connections (issue 21): a domain or a social-network handle the user
-- proved they control. Rows are written by the user's actor
-- (shards/user/operations/Connections.ts), which keeps them in its state.
CREATE TABLE user_connections (
  id                bigint PRIMARY KEY,
  user_id           bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type              text NOT NULL,               -- 'social' or 'domain'
  name              text NOT NULL,               -- the handle or domain, lower case
  proof             text NOT NULL,               -- the public verification string the user published
  verified          boolean NOT NULL,
  verified_at       timestamptz,
  visibility_flags  integer NOT NULL,
  sort_order        integer NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, type, name)
);
-- Profiles read the verified ones of a user.
CREATE INDEX user_connections_user ON user_connections (user_id, sort_order, id);

-- Started verifications: the initiation token handed to the client, stored as
-- its SHA-256 only, tied to the user, the account and the string to publish.
CREATE TABLE connection_initiations (
  token_hash        bytea PRIMARY KEY,
  user_id           bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type              text NOT NULL,
  name              text NOT NULL,
  proof             text NOT NULL,
  visibility_flags  integer NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL
);
CREATE INDEX connection_initiations_user ON connection_initiations (user_id, created_at);
