-- File operations (move, copy, delete, empty trash), so that every instance reports a
-- user's operations. files and folders hold JSON arrays of {id, title}; finished_at is
-- NULL while the operation runs. Finished rows go once reported, or when they expire.
CREATE TABLE file_operations (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('move', 'copy', 'delete')),
  started_at bigint NOT NULL,
  finished_at bigint,
  error text NOT NULL DEFAULT '',
  files text NOT NULL DEFAULT '[]',
  folders text NOT NULL DEFAULT '[]'
);
CREATE INDEX file_operations_by_user ON file_operations (user_id, started_at);
CREATE INDEX file_operations_by_finish ON file_operations (finished_at);
CREATE INDEX file_operations_by_start ON file_operations (started_at) WHERE finished_at IS NULL;
