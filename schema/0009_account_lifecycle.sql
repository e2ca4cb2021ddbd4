-- Account disable and scheduled deletion (issue 3). The columns themselves,
-- users.disabled_at and users.deletion_scheduled_at (the moment the deletion is
-- due), came with 0002_accounts.sql. The deletion job asks every minute for the
-- due accounts: this index keeps that a look at the few scheduled rows rather
-- than a scan of every user.
CREATE INDEX users_deletion_due ON users (deletion_scheduled_at) WHERE deletion_scheduled_at IS NOT NULL;
