-- Files per owner, kept by triggers, so the total of a listing is one row read
-- instead of a count over all of the owner's files (a page of 100 must cost the
-- same with 100 or 100,000 files stored).

CREATE TABLE file_counts (
  owner_id TEXT PRIMARY KEY,
  files INTEGER NOT NULL CHECK (files >= 0)
) STRICT;

INSERT INTO file_counts (owner_id, files)
  SELECT owner_id, count(*) FROM files GROUP BY owner_id;

CREATE TRIGGER file_counts_after_insert AFTER INSERT ON files BEGIN
  INSERT INTO file_counts (owner_id, files) VALUES (NEW.owner_id, 1)
    ON CONFLICT (owner_id) DO UPDATE SET files = files + 1;
END;

CREATE TRIGGER file_counts_after_delete AFTER DELETE ON files BEGIN
  UPDATE file_counts SET files = files - 1 WHERE owner_id = OLD.owner_id;
END;

CREATE TRIGGER file_counts_after_owner_change AFTER UPDATE OF owner_id ON files
  WHEN NEW.owner_id IS NOT OLD.owner_id BEGIN
  UPDATE file_counts SET files = files - 1 WHERE owner_id = OLD.owner_id;
  INSERT INTO file_counts (owner_id, files) VALUES (NEW.owner_id, 1)
    ON CONFLICT (owner_id) DO UPDATE SET files = files + 1;
END;
