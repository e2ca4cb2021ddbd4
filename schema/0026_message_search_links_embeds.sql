-- Message search by link hostname and by embed type (POST /search/messages:
-- link_hostname, exclude_link_hostname, embed_type, exclude_embed_type).
--
-- Like the indexes of 0024, both are partial: only messages with a link or an embed pay
-- for them on insert; plain text pays nothing.

-- The hostnames a message links to: of each http(s) URL in its text and of each embed's
-- url, lower-cased, without user info, port or a trailing dot. A function, so that the
-- index and the queries name the very same expression (they must, to use the index).
CREATE FUNCTION message_link_hostnames(content text, embeds jsonb) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT ARRAY(
    SELECT DISTINCT lower(rtrim(m[1], '.'))
    FROM regexp_matches(
      content || ' ' || coalesce(
        (SELECT string_agg(u #>> '{}', ' ') FROM jsonb_path_query(embeds, '$[*].url ? (@.type() == "string")') AS u), ''),
      'https?://(?:[^/?#[:space:]@]*@)?([[:alnum:].-]+)', 'gi') AS m
    WHERE m[1] ~ '[[:alnum:]]')
$fn$;

-- Looked up by overlap (`&&`) with the hostnames asked for. The predicate is what a
-- message needs to have a hostname at all; queries repeat it to use the index.
CREATE INDEX messages_link_hostnames ON messages USING gin (message_link_hostnames(content, embeds))
  WHERE content ~* 'https?://' OR embeds <> '[]'::jsonb;

-- Embeds by their type, looked up by containment (embeds @> '[{"type": "image"}]');
-- jsonb_path_ops keeps the index to the hashes of paths and values, which is all `@>` needs.
CREATE INDEX messages_embed_types ON messages USING gin (embeds jsonb_path_ops) WHERE embeds <> '[]'::jsonb;
