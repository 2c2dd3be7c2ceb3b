-- Sign-in throttle with a growing lock-out: attempts are counted before the password
-- is checked, and a key is locked until blocked_until (0 when not locked). A key that
-- saw no attempt for a whole window starts over, so last_attempt_at is kept too.
ALTER TABLE login_throttle ADD COLUMN last_attempt_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE login_throttle ADD COLUMN blocked_until INTEGER NOT NULL DEFAULT 0;
UPDATE login_throttle SET last_attempt_at = window_started_at;

-- The garbage collector asks which blob keys any version still uses.
CREATE INDEX versions_by_blob_key ON versions (blob_key);
