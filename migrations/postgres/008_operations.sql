-- The audit trail: sign-ins, account changes, deletes, restores, lock releases. seq keeps
-- the order events were appended in (several can share a millisecond); rows are never
-- changed, and they name users and files by text so they outlive them.
CREATE TABLE audit_events (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  at bigint NOT NULL,
  action text NOT NULL,
  actor_id text NOT NULL,
  actor_name text NOT NULL,
  address text NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  target_name text NOT NULL,
  detail text NOT NULL
);
CREATE INDEX audit_events_by_time ON audit_events (at, seq);

-- The lock-count metric counts files whose lock has not expired.
CREATE INDEX files_by_lock_expiry ON files (lock_expires_at) WHERE lock_expires_at IS NOT NULL;
