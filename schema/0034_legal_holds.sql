-- Legal holds (issue 20). While a report is under a legal hold, the messages it
-- names (the reported message and the context captured with it) are listed here,
-- and no deletion path removes them: a user's own delete, bulk deletes, moderators'
-- deletes, the self-deletion and operators' deletion jobs, shredding. Releasing the
-- hold removes the report's rows.
CREATE TABLE legal_hold_messages (
  message_id  bigint NOT NULL,
  report_id   bigint NOT NULL,
  held_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (message_id, report_id)
);
CREATE INDEX legal_hold_messages_report ON legal_hold_messages (report_id);
