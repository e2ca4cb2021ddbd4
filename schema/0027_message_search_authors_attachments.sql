-- Message search by embed provider, attachment filename and extension, and author type
-- (POST /search/messages: embed_provider, attachment_filename, attachment_extension,
-- author_type and their exclude_ forms).
--
-- As in 0024 and 0026 every index is partial: only messages with an embed or an
-- attachment pay for these on insert; plain text pays nothing. Each extracts its terms
-- through a function, so that the index and the queries name the very same expression
-- (they must, to use the index), and is looked up by overlap (`&&`) with the terms asked
-- for, which the queries lower-case with the same lower() as here.

-- The lower-cased names of the providers of a message's embeds ("YouTube" -> "youtube").
CREATE FUNCTION message_embed_providers(embeds jsonb) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT ARRAY(
    SELECT DISTINCT lower(p #>> '{}')
    FROM jsonb_path_query(embeds, '$[*].provider.name ? (@.type() == "string")') AS p
    WHERE p #>> '{}' <> '')
$fn$;

CREATE INDEX messages_embed_providers ON messages USING gin (message_embed_providers(embeds))
  WHERE embeds <> '[]'::jsonb;

-- The names a message's attachments are found by, lower-cased: each whole filename and
-- the filename without its last extension ("Report.Final.PDF" -> "report.final.pdf",
-- "report.final"). A search names a file the way a person remembers it, with or without
-- its extension; an exact match (not a substring) is what the index can look up.
CREATE FUNCTION message_attachment_filenames(attachments jsonb) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT ARRAY(
    SELECT DISTINCT n.name
    FROM jsonb_path_query(attachments, '$[*].filename ? (@.type() == "string")') AS f,
         LATERAL (VALUES (lower(f #>> '{}')), (lower(regexp_replace(f #>> '{}', '\.[^.]*$', '')))) AS n (name)
    WHERE n.name <> '')
$fn$;

CREATE INDEX messages_attachment_filenames ON messages USING gin (message_attachment_filenames(attachments))
  WHERE attachments <> '[]'::jsonb;

-- The lower-cased extensions of a message's attachments: what follows the last dot of
-- the filename ("archive.tar.GZ" -> "gz"); a name without a dot, or ending in one, has none.
CREATE FUNCTION message_attachment_extensions(attachments jsonb) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT ARRAY(
    SELECT DISTINCT lower(substring(f #>> '{}' FROM '\.([^.]+)$'))
    FROM jsonb_path_query(attachments, '$[*].filename ? (@.type() == "string")') AS f
    WHERE f #>> '{}' ~ '\.[^.]+$')
$fn$;

CREATE INDEX messages_attachment_extensions ON messages USING gin (message_attachment_extensions(attachments))
  WHERE attachments <> '[]'::jsonb;

-- author_type "bot": the bots among the users, few next to the people, so a search for
-- bot messages starts from their ids (then messages_author of 0023).
CREATE INDEX users_bots ON users (id) WHERE bot;
