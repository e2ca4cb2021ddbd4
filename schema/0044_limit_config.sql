-- The instance's limit configuration (issue 23; src/platform/Limits.ts): one
-- row holding what operators stored through /admin/limit-config/update, rules
-- over the defaults in src/model/Limits.ts. No row: the defaults apply.
CREATE TABLE limit_config (
  id          smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  config      jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
