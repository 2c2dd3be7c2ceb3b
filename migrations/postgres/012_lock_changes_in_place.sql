-- Every Lock, RefreshLock and Unlock changes lock_expires_at. While an index covers that
-- column, PostgreSQL must write each change as a new row version with a new entry in every
-- index of files (eleven more); without one it updates the row in place on its page (a "HOT"
-- update: no index entries, far less WAL), which took PostgreSQL's CPU per lock call from
-- about 62 to 40 µs. The index only served the lock-count metric, which now scans files
-- once per scrape. SQLite keeps its index: it rewrites only the indexes of changed columns.
DROP INDEX files_by_lock_expiry;
