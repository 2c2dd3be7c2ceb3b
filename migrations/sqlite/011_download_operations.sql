-- Downloads of several items as one archive are file operations too ('download'), so the
-- kind's CHECK takes a fourth value. SQLite cannot change a CHECK in place: the table is
-- made anew and its rows (short-lived reports of operations) copied over.
CREATE TABLE file_operations_new (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('move', 'copy', 'delete', 'download')),
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  error TEXT NOT NULL DEFAULT '',
  files TEXT NOT NULL DEFAULT '[]',
  folders TEXT NOT NULL DEFAULT '[]'
);
INSERT INTO file_operations_new (id, user_id, kind, started_at, finished_at, error, files, folders)
  SELECT id, user_id, kind, started_at, finished_at, error, files, folders FROM file_operations;
DROP TABLE file_operations;
ALTER TABLE file_operations_new RENAME TO file_operations;
CREATE INDEX file_operations_by_user ON file_operations (user_id, started_at);
CREATE INDEX file_operations_by_finish ON file_operations (finished_at);
CREATE INDEX file_operations_by_start ON file_operations (started_at) WHERE finished_at IS NULL;
