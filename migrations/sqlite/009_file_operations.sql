-- File operations (move, copy, delete, empty trash), so that every instance reports a
-- user's operations. files and folders hold JSON arrays of {id, title}; finished_at is
-- NULL while the operation runs. Finished rows go once reported, or when they expire.
CREATE TABLE file_operations (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('move', 'copy', 'delete')),
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  error TEXT NOT NULL DEFAULT '',
  files TEXT NOT NULL DEFAULT '[]',
  folders TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX file_operations_by_user ON file_operations (user_id, started_at);
CREATE INDEX file_operations_by_finish ON file_operations (finished_at);
CREATE INDEX file_operations_by_start ON file_operations (started_at) WHERE finished_at IS NULL;
