-- Who may see an event's web pages (`dopis web`): 'public' (listed on the
-- index), 'unlisted' (by a link with an unguessable part) or 'private' (its
-- own players, through their private links). Events made before the web
-- pages existed become 'unlisted': nothing a TD made turns public unless a
-- TD says so (`visibility` in the event file, `dopis event visibility`).
ALTER TABLE events ADD COLUMN visibility TEXT NOT NULL DEFAULT 'unlisted';
