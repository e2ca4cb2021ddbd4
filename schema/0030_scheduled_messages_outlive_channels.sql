-- Scheduled messages are their author's user actor's (issue 18): it lists them from memory,
-- so a row may not vanish behind it. A channel (or guild) deleted before a message is due no
-- longer takes the row with it: the sweep sends it when due, the guild refuses it, and the
-- author sees it `invalid` with the reason (UNKNOWN_CHANNEL), as when they lose access.
ALTER TABLE scheduled_messages DROP CONSTRAINT scheduled_messages_channel_id_fkey;
