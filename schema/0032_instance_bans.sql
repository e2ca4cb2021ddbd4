-- Instance-wide bans and reservations (issue 19), set by operators under /admin.
--   banned_ips: addresses and ranges refused on every request; an address is a
--     /32 or /128. Stored canonical (an IPv4-mapped IPv6 address as IPv4), so
--     the primary key makes a second ban of the same range a no-op. The GiST
--     index serves `network >>= address` (POST /admin/bans/ip/check).
--   banned_emails: addresses (lower case) that may not register or become an
--     account's address. banned_phones: E.164 numbers that may not be added.
--   snowflake_reservations: the user id an account registered with this email
--     (lower case) takes.
CREATE TABLE banned_ips (
  network    cidr PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX banned_ips_network ON banned_ips USING gist (network inet_ops);

CREATE TABLE banned_emails (
  email      text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE banned_phones (
  phone      text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE snowflake_reservations (
  email      text PRIMARY KEY,
  snowflake  bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
