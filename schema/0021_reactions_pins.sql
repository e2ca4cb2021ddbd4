-- Reactions and pins of messages (issue 5).
--
-- Reactions are read three ways: every reaction of a page of messages (a message's
-- `reactions` summary), the users of one emoji on one message paged by user id
-- (`after`), and all of a message's rows when a moderator clears them. The primary key
-- (channel_id, message_id, emoji_key, user_id) serves all three as one index range
-- scan, and makes adding the same reaction twice a no-op. The key leads with the
-- message's own key so rows of one message sit together. No other index: reactions are
-- never looked up by user.
--
-- emoji_key is the emoji as it is matched: the id of a custom emoji, the text of a
-- unicode one. emoji_name and animated are what the summary shows of a custom emoji
-- (its name when the reaction was added; the emoji may be renamed or deleted since).
-- created_at orders a message's reactions by their first use.
--
-- The foreign key removes reactions with their message (message and bulk deletion,
-- channel deletion through the messages cascade). It is checked at commit: a guild
-- actor's batch writes the rows of each table in one statement, so a reaction to a
-- message sent in the same batch may be inserted before the message is.
CREATE TABLE message_reactions (
  channel_id  bigint NOT NULL,
  message_id  bigint NOT NULL,
  emoji_key   text NOT NULL,
  user_id     bigint NOT NULL,
  emoji_id    bigint,
  emoji_name  text NOT NULL,
  animated    boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (channel_id, message_id, emoji_key, user_id),
  FOREIGN KEY (channel_id, message_id) REFERENCES messages (channel_id, id) ON DELETE CASCADE
    DEFERRABLE INITIALLY DEFERRED
);

-- When a message was pinned: the pins list is newest pin first, paged by this time.
ALTER TABLE messages ADD COLUMN pinned_at timestamptz;

-- Pins are few (a limit per channel) among many messages: a partial index holds only
-- them, read by channel newest pin first, and by guild when the guild actor loads.
CREATE INDEX messages_pins ON messages (channel_id, pinned_at DESC) WHERE pinned;
CREATE INDEX messages_guild_pins ON messages (guild_id) WHERE pinned;

-- How far each user has seen a channel's pins (POST /channels/{id}/pins/ack).
CREATE TABLE channel_pin_acks (
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  channel_id  bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  acked_at    timestamptz NOT NULL,
  PRIMARY KEY (user_id, channel_id)
);
