-- Reports (issue 20). A report keeps what it names as it was when reported:
-- names, and for a message the message and a few around it (message_context),
-- so that a later deletion does not erase the evidence.
CREATE TABLE reports (
  id                              bigint PRIMARY KEY,
  report_type                     integer NOT NULL,           -- 0 message, 1 user, 2 guild
  status                          integer NOT NULL DEFAULT 0, -- 0 pending, 1 resolved
  category                        text NOT NULL,
  additional_info                 text,
  reporter_id                     bigint,                     -- null: a DSA report without an account
  reporter_email                  text,
  reporter_full_legal_name        text,
  reporter_country_of_residence   text,
  reported_user_id                bigint,
  reported_user_avatar_hash       text,
  reported_guild_id               bigint,
  reported_guild_name             text,
  reported_guild_invite_code      text,
  reported_message_id             bigint,
  reported_channel_id             bigint,
  reported_channel_name           text,
  guild_context_id                bigint,
  message_context                 jsonb,
  reported_at                     timestamptz NOT NULL DEFAULT now(),
  resolved_at                     timestamptz,
  resolved_by_admin_id            bigint,
  public_comment                  text,
  audit_log_reason                text
);
CREATE INDEX reports_reporter ON reports (reporter_id, reported_at);
CREATE INDEX reports_status ON reports (status, id);

-- DSA reports from people without an account: a code mailed to the address,
-- then a ticket for the verified address (hashes only).
CREATE TABLE dsa_email_verifications (
  email       text PRIMARY KEY,          -- lower case
  code_hash   text NOT NULL,
  attempts    integer NOT NULL DEFAULT 0,
  expires_at  timestamptz NOT NULL
);
CREATE TABLE dsa_tickets (
  ticket_hash text PRIMARY KEY,
  email       text NOT NULL,
  expires_at  timestamptz NOT NULL
);

-- Submissions of reports to the child-safety authority, retried by a sweep.
CREATE TABLE authority_submissions (
  report_id              bigint PRIMARY KEY REFERENCES reports (id) ON DELETE CASCADE,
  status                 text NOT NULL,            -- pending, submitted, failed
  attempts               integer NOT NULL DEFAULT 0,
  next_attempt_at        timestamptz,
  failure_reason         text,
  authority_report_id    text,
  submitted_at           timestamptz,
  submitted_by_admin_id  bigint NOT NULL
);
CREATE INDEX authority_submissions_due ON authority_submissions (next_attempt_at) WHERE status = 'pending';
