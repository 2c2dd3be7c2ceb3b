-- A running file operation's process writes alive_at every few seconds; a running row
-- whose alive_at (or, before its first beat, started_at) is old lost its process, and is
-- reported ended with an error instead of running until it expires.
ALTER TABLE file_operations ADD COLUMN alive_at bigint;
