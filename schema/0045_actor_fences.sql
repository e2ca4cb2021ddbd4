-- Fencing tokens of the actors (issue 24, the shard pause): a process that loads
-- an actor first raises its epoch here, and every commit of the actor checks, in
-- its own statement, that the epoch it loaded with is still the current one. A
-- process paused past its shard lease wakes up believing it still owns its
-- actors; its in-flight commits then fail instead of landing beside the new
-- owner's (a retried write applied twice). The check takes a share lock on the
-- row, so a commit either lands before the new owner's claim (and is in what
-- it loads) or is refused.
CREATE TABLE actor_fences (
  entity_key  text PRIMARY KEY,
  epoch       bigint NOT NULL
);

-- Raises SQLSTATE GH001 unless `held` is the entity's current epoch (0: never claimed).
CREATE FUNCTION actor_fence_held(key text, held bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  current_epoch bigint;
BEGIN
  SELECT epoch INTO current_epoch FROM actor_fences WHERE entity_key = key FOR SHARE;
  IF COALESCE(current_epoch, 0) <> held THEN
    RAISE EXCEPTION 'actor % is owned elsewhere now (epoch % held, % current)', key, held, current_epoch
      USING ERRCODE = 'GH001';
  END IF;
  RETURN true;
END
$$;
