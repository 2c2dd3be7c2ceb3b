-- An admin may disable an account without removing it: a disabled user cannot sign in,
-- and nothing issued to them (sessions, WOPI tokens, links to their files) works until
-- they are enabled again. Their files and the shares to them stay.
ALTER TABLE users ADD COLUMN disabled boolean NOT NULL DEFAULT false;
