-- Storage quotas. used_space holds the bytes of every stored version of the files each
-- user owns (trash included), kept by triggers in the transaction that adds or removes a
-- version, so every instance on the store reads the same figure in one row read.

CREATE TABLE used_space (
  owner_id TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL
) STRICT;

INSERT INTO used_space (owner_id, bytes)
  SELECT files.owner_id, sum(versions.size) FROM versions
    JOIN files ON files.id = versions.file_id GROUP BY files.owner_id;

CREATE TRIGGER used_space_after_version_insert AFTER INSERT ON versions BEGIN
  INSERT INTO used_space (owner_id, bytes)
    SELECT owner_id, NEW.size FROM files WHERE id = NEW.file_id
    ON CONFLICT (owner_id) DO UPDATE SET bytes = bytes + excluded.bytes;
END;

-- A version removed while its file stays (retention, squashing, or the versions of a file
-- deleted one statement before the file).
CREATE TRIGGER used_space_after_version_delete AFTER DELETE ON versions BEGIN
  UPDATE used_space SET bytes = bytes - OLD.size
    WHERE owner_id = (SELECT owner_id FROM files WHERE id = OLD.file_id);
END;

-- A file deleted with its versions still there: they go by the cascade after the file,
-- when the trigger above no longer finds the owner.
CREATE TRIGGER used_space_before_file_delete BEFORE DELETE ON files BEGIN
  UPDATE used_space SET bytes = bytes -
      (SELECT coalesce(sum(size), 0) FROM versions WHERE file_id = OLD.id)
    WHERE owner_id = OLD.owner_id;
END;

CREATE TRIGGER used_space_after_owner_change AFTER UPDATE OF owner_id ON files
  WHEN NEW.owner_id IS NOT OLD.owner_id BEGIN
  UPDATE used_space SET bytes = bytes -
      (SELECT coalesce(sum(size), 0) FROM versions WHERE file_id = NEW.id)
    WHERE owner_id = OLD.owner_id;
  INSERT INTO used_space (owner_id, bytes)
    SELECT NEW.owner_id, coalesce(sum(size), 0) FROM versions WHERE file_id = NEW.id
    ON CONFLICT (owner_id) DO UPDATE SET bytes = bytes + excluded.bytes;
END;

-- An admin's limit per user, in bytes; a user without a row has none.
CREATE TABLE user_quotas (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  quota_limit INTEGER NOT NULL CHECK (quota_limit >= 0)
) STRICT;
