-- Sharing with people: one entry per (item, user). item_kind is 'file' or 'folder';
-- access is the FileShare number (1 ReadWrite, 2 Read, 3 Restrict, 5 Review, 6 Comment,
-- 7 FillForms). "None" is never stored: removing access deletes the row.
CREATE TABLE shares (
  item_kind text NOT NULL CHECK (item_kind IN ('file', 'folder')),
  item_id text NOT NULL,
  user_id text NOT NULL,
  access integer NOT NULL CHECK (access IN (1, 2, 3, 5, 6, 7)),
  granted_by text NOT NULL,
  granted_at bigint NOT NULL,
  PRIMARY KEY (item_kind, item_id, user_id)
);
-- "Shared with me" lists a user's entries.
CREATE INDEX shares_by_user ON shares (user_id);

-- A file's entries go with the file.
CREATE FUNCTION shares_of_deleted_file() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM shares WHERE item_kind = 'file' AND item_id = OLD.id;
  RETURN OLD;
END
$$;
CREATE TRIGGER shares_of_deleted_file AFTER DELETE ON files
  FOR EACH ROW EXECUTE FUNCTION shares_of_deleted_file();

-- Sharing by link: at most one link per file. Only the SHA-256 (hex) of the link's key is
-- kept; revoked_at is set when the link is turned off (NULL while it works).
CREATE TABLE share_links (
  file_id text PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
  key_hash text NOT NULL,
  access integer NOT NULL CHECK (access IN (1, 2, 5, 6)),
  created_at bigint NOT NULL,
  revoked_at bigint
);
