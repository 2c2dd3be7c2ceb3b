-- Conversions of stored contents (a PDF, a thumbnail, ...), made once and kept. Keyed by the
-- source blob, which never changes: every version holding that blob shares its renditions,
-- and they go when no version holds it any more.
CREATE TABLE renditions (
  source_blob_key TEXT NOT NULL,
  target TEXT NOT NULL,
  blob_key TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (source_blob_key, target)
) STRICT;
CREATE INDEX renditions_by_blob_key ON renditions (blob_key);
