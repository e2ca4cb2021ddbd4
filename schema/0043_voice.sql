-- Voice regions and the media servers in them (issue 23), managed through
-- /admin/voice/*. A region or server with access rules is for some callers only:
-- VIP guilds (the VIP_VOICE feature), guilds holding every required feature,
-- or the guilds and users listed (src/model/RtcRegions.ts). The API secret is
-- kept sealed (AES-256-GCM with VOICE_SECRET_KEY, src/platform/Crypto.ts).
CREATE TABLE voice_regions (
  id                       text PRIMARY KEY,
  name                     text NOT NULL,
  emoji                    text NOT NULL,
  latitude                 double precision NOT NULL,
  longitude                double precision NOT NULL,
  is_default               boolean NOT NULL DEFAULT false,
  vip_only                 boolean NOT NULL DEFAULT false,
  required_guild_features  text[] NOT NULL DEFAULT '{}',
  allowed_guild_ids        text[] NOT NULL DEFAULT '{}',
  allowed_user_ids         text[] NOT NULL DEFAULT '{}',
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now()
);
-- At most one default region.
CREATE UNIQUE INDEX voice_regions_one_default ON voice_regions (is_default) WHERE is_default;

CREATE TABLE voice_servers (
  region_id                text NOT NULL REFERENCES voice_regions (id) ON DELETE CASCADE,
  server_id                text NOT NULL,
  endpoint                 text NOT NULL,
  api_key                  text NOT NULL,
  api_secret_sealed        bytea NOT NULL,
  is_active                boolean NOT NULL DEFAULT true,
  vip_only                 boolean NOT NULL DEFAULT false,
  required_guild_features  text[] NOT NULL DEFAULT '{}',
  allowed_guild_ids        text[] NOT NULL DEFAULT '{}',
  allowed_user_ids         text[] NOT NULL DEFAULT '{}',
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (region_id, server_id)
);
