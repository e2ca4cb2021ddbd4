-- The other side of a relationship change (issue 18). A friend request, an acceptance,
-- a removal or a block is written first through the acting user's actor, which records
-- here, in the same transaction, what the other user's side is to become; the other
-- user's actor deletes the row in the transaction that applies it. A row that stays
-- (the caller died between the two) is delivered again by the shard processes' sweep,
-- under the same operation id, so a change ends up on both sides or on neither.
-- `seq` orders one user's changes toward another: they are applied in that order.
CREATE TABLE relationship_intents (
  operation_id  text PRIMARY KEY,
  seq           bigint GENERATED ALWAYS AS IDENTITY,
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  peer_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  change        jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX relationship_intents_pair ON relationship_intents (user_id, peer_id, seq);
CREATE INDEX relationship_intents_peer ON relationship_intents (peer_id);
