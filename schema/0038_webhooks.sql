-- Incoming webhooks of guild channels. The token is kept only as its SHA-256
-- (hex), as session tokens are; the avatar is a media-store hash like emoji
-- images. Deleting the channel or the guild deletes the webhook.
CREATE TABLE webhooks (
  id           bigint PRIMARY KEY,
  guild_id     bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  channel_id   bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  type         integer NOT NULL DEFAULT 1,
  name         text NOT NULL,
  avatar_hash  text,
  token_hash   text NOT NULL,
  creator_id   bigint REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_guild ON webhooks (guild_id);

-- A webhook's message names its webhook and shows the name and avatar it was
-- posted under (an execute may override both); its author_id is the webhook's id.
ALTER TABLE messages
  ADD COLUMN webhook_id bigint,
  ADD COLUMN webhook_name text,
  ADD COLUMN webhook_avatar text;
