-- Message search, mentions and saved messages (issue 5).
--
-- 0019 keeps one index on messages because every index is paid on every insert, the
-- hot write. Each index below is partial, so a message only pays for the ones it
-- qualifies for, and the common message (plain text, no mention) pays for one.

-- Full-text search (POST /search/messages). An expression index rather than a stored
-- tsvector column: a generated column would store the vector in every row (the table
-- and its page cache grow by roughly the size of the text again) and cost the same
-- to_tsvector on insert; the index alone holds the lexemes, and a search re-checks its
-- few candidate rows by recomputing the vector, which is cheap next to the scan it
-- saves. The text search configuration is 'simple' (lower-cased words, no stemming, no
-- stop words): chat is written in every language, and stemming English words would
-- mangle the others. Queries must use the very same expression to hit the index.
-- GIN, not GiST: exact lexeme lookups, at the price of slower inserts, which GIN's
-- pending list (fastupdate, on by default) batches into bulk merges.
-- Empty messages (attachments only, forwards) are left out of the index.
CREATE INDEX messages_content_search ON messages
  USING gin (to_tsvector('simple'::regconfig, content)) WHERE content <> '';

-- "Who mentioned me" (GET /users/@me/mentions, mention counts): the users a message
-- pings, looked up by user. Most messages ping nobody and never touch this index.
CREATE INDEX messages_mentioned_users ON messages USING gin (mention_user_ids) WHERE mention_user_ids <> '{}';

-- Role and @everyone mentions, looked up per channel newest first; rare by nature.
CREATE INDEX messages_mass_mentions ON messages (channel_id, id)
  WHERE mention_everyone OR mention_role_ids <> '{}';

-- Mentions the user removed from their list (DELETE /users/@me/mentions/{id}).
CREATE TABLE mention_dismissals (
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  message_id  bigint NOT NULL,
  PRIMARY KEY (user_id, message_id)
);

-- A direct mention adds one to the mentioned user's unread count of the channel (the
-- author's own mention excepted), in the transaction that stores the message. The
-- trigger only fires for messages that mention somebody. Role and @everyone mentions
-- are not counted: that would write a row per member of the role or guild per message.
CREATE FUNCTION count_message_mentions() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  INSERT INTO read_states (user_id, channel_id, last_message_id, mention_count, updated_at)
  SELECT u.id, NEW.channel_id, 0, 1, now()
  FROM unnest(NEW.mention_user_ids) AS m(user_id)
  JOIN users u ON u.id = m.user_id
  WHERE m.user_id <> NEW.author_id
  ON CONFLICT (user_id, channel_id) DO UPDATE SET mention_count = read_states.mention_count + 1
    WHERE read_states.last_message_id < NEW.id;
  RETURN NULL;
END
$body$;

CREATE TRIGGER messages_count_mentions AFTER INSERT ON messages
  FOR EACH ROW WHEN (NEW.mention_user_ids <> '{}') EXECUTE FUNCTION count_message_mentions();

-- Saved messages ("bookmarks"), listed newest saved first per user. The message is
-- referenced by id only: a deleted message drops out of the list when it is read.
CREATE TABLE saved_messages (
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  message_id  bigint NOT NULL,
  channel_id  bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  saved_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, message_id)
);
CREATE INDEX saved_messages_newest ON saved_messages (user_id, saved_at DESC, message_id DESC);
