-- Sharing with people: one entry per (item, user). item_kind is 'file' or 'folder';
-- access is the FileShare number (1 ReadWrite, 2 Read, 3 Restrict, 5 Review, 6 Comment,
-- 7 FillForms). "None" is never stored: removing access deletes the row.
CREATE TABLE shares (
  item_kind TEXT NOT NULL CHECK (item_kind IN ('file', 'folder')),
  item_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  access INTEGER NOT NULL CHECK (access IN (1, 2, 3, 5, 6, 7)),
  granted_by TEXT NOT NULL,
  granted_at INTEGER NOT NULL,
  PRIMARY KEY (item_kind, item_id, user_id)
);
-- "Shared with me" lists a user's entries.
CREATE INDEX shares_by_user ON shares (user_id);

-- A file's entries go with the file.
CREATE TRIGGER shares_of_deleted_file AFTER DELETE ON files
BEGIN
  DELETE FROM shares WHERE item_kind = 'file' AND item_id = OLD.id;
END;

-- Sharing by link: at most one link per file. Only the SHA-256 (hex) of the link's key is
-- kept; revoked_at is set when the link is turned off (NULL while it works).
CREATE TABLE share_links (
  file_id TEXT PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL,
  access INTEGER NOT NULL CHECK (access IN (1, 2, 5, 6)),
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
