-- Conditional moves, as JSON: {"white": [["g8f6", "e4e5"], …], "black": […]}
-- (lines of UCI moves, each starting with the opponent's move). NULL: none.
ALTER TABLE games ADD COLUMN conditionals TEXT;
