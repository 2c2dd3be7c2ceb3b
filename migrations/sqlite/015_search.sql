-- Background jobs: one row per (kind, subject), so asking twice is one job. A worker takes
-- a job by setting taken_by/taken_at (its lease); a job whose taker died is taken again once
-- the lease has run out, so a crash loses nothing.
CREATE TABLE jobs (
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  run_after INTEGER NOT NULL,
  taken_by TEXT,
  taken_at INTEGER,
  last_error TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (kind, subject)
) STRICT;
CREATE INDEX jobs_due ON jobs (state, run_after);

-- The search index: the text of each file's current version (for snippets), and its folded
-- words and those of its title (computed by Folio, the same for SQLite and PostgreSQL) in an FTS5 table without
-- content of its own. A file's row goes with the file; the trigger takes its words along.
CREATE TABLE search_documents (
  id INTEGER PRIMARY KEY,
  file_id TEXT NOT NULL UNIQUE REFERENCES files (id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  body TEXT NOT NULL
) STRICT;

-- The words of the file's title (ranked first) and of its text. unicode61 with
-- remove_diacritics 2: case and accents never matter (the words stored are folded already;
-- queries are too). No stemming.
CREATE VIRTUAL TABLE search_terms USING fts5 (
  title,
  terms,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER search_documents_gone AFTER DELETE ON search_documents BEGIN
  DELETE FROM search_terms WHERE rowid = OLD.id;
END;
