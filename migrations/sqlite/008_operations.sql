-- The audit trail: sign-ins, account changes, deletes, restores, lock releases. seq keeps
-- the order events were appended in (several can share a millisecond); rows are never
-- changed, and they name users and files by text so they outlive them.
CREATE TABLE audit_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  at INTEGER NOT NULL,
  action TEXT NOT NULL,
  actor_id TEXT NOT NULL,
  actor_name TEXT NOT NULL,
  address TEXT NOT NULL,
  target_type TEXT NOT NULL,
  target_id TEXT NOT NULL,
  target_name TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX audit_events_by_time ON audit_events (at, seq);

-- The lock-count metric counts files whose lock has not expired.
CREATE INDEX files_by_lock_expiry ON files (lock_expires_at) WHERE lock_expires_at IS NOT NULL;
