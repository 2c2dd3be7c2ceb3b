-- Each user's own choices for the portal API's settings (files/settings): whether an upload
-- under a name the folder holds already stores a new version of that file by default.
CREATE TABLE user_settings (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  update_if_exist INTEGER NOT NULL DEFAULT 0
);
