-- ONLYOFFICE Docs editing state: who is editing each file now (callback
-- status 1) and the last save error (status 3/7 or a failed download).
-- One row per file, created on first use and removed with the file.
-- editors holds a JSON array of user ids as Docs listed them.

CREATE TABLE editing (
  file_id TEXT PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
  document_key TEXT NOT NULL DEFAULT '',
  editors TEXT NOT NULL DEFAULT '[]',
  updated_at INTEGER NOT NULL,
  error_status INTEGER,
  error_key TEXT,
  error_message TEXT,
  error_at INTEGER,
  CHECK ((error_status IS NULL) = (error_at IS NULL))
) STRICT;
