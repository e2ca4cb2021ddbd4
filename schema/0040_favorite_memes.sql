-- Saved media ("memes", issue 21): a user's own copies of images and videos,
-- kept by their user actor (shards/user/operations/FavoriteMemes.ts). The
-- bytes are in the media store under content_hash, shared with whatever else
-- stored the same bytes; `url` is where they are served, fixed when saved as
-- a message attachment's is.
CREATE TABLE favorite_memes (
  id             bigint PRIMARY KEY,
  user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name           text NOT NULL,
  alt_text       text,
  tags           text[] NOT NULL DEFAULT '{}',
  attachment_id  bigint NOT NULL,
  filename       text NOT NULL,
  content_type   text NOT NULL,
  content_hash   text,
  size           bigint NOT NULL,
  width          integer,
  height         integer,
  duration       double precision,
  url            text NOT NULL,
  is_gifv        boolean NOT NULL DEFAULT false,
  gifa_slug_id   text,
  gifb_slug      text,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX favorite_memes_by_user ON favorite_memes (user_id, id DESC);
-- An expression purge asks whether anything else still shows an object's bytes.
CREATE INDEX favorite_memes_by_hash ON favorite_memes (content_hash);
