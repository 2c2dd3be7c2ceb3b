-- ONLYOFFICE Docs editing state: who is editing each file now (callback
-- status 1) and the last save error (status 3/7 or a failed download).
-- One row per file, created on first use and removed with the file.
-- editors holds a JSON array of user ids as Docs listed them.

CREATE TABLE editing (
  file_id text COLLATE "C" PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
  document_key text NOT NULL DEFAULT '',
  editors text NOT NULL DEFAULT '[]',
  updated_at bigint NOT NULL,
  error_status integer,
  error_key text,
  error_message text,
  error_at bigint,
  CHECK ((error_status IS NULL) = (error_at IS NULL))
);
