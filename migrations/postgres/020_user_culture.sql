-- The language a user chose for the web interface (ONLYOFFICE's cultureName: 'de', 'fr-FR'),
-- kept with their other settings so it follows them to every browser; '' follows the
-- browser's own languages.
ALTER TABLE user_settings ADD COLUMN culture_name text NOT NULL DEFAULT '';
