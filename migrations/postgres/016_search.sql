-- Background jobs: one row per (kind, subject), so asking twice is one job. A worker takes
-- a job by setting taken_by/taken_at (its lease); a job whose taker died is taken again once
-- the lease has run out, so a crash loses nothing.
CREATE TABLE jobs (
  kind text COLLATE "C" NOT NULL,
  subject text COLLATE "C" NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'running', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  run_after bigint NOT NULL,
  taken_by text,
  taken_at bigint,
  last_error text NOT NULL DEFAULT '',
  PRIMARY KEY (kind, subject)
);
CREATE INDEX jobs_due ON jobs (state, run_after);

-- The search index: the text of each file's current version (for snippets), and its folded
-- words (computed by Folio, the same for SQLite and PostgreSQL) as a tsvector of the
-- 'simple' configuration (no stemming, no stop words) under a GIN index: the title's words
-- with weight A (ranked first), the text's with weight D. A file's row goes with the file.
CREATE TABLE search_documents (
  file_id text COLLATE "C" PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
  version integer NOT NULL,
  body text NOT NULL,
  terms tsvector NOT NULL
);
CREATE INDEX search_documents_terms ON search_documents USING gin (terms);
