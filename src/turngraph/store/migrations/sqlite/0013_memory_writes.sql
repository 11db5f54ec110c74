-- How many write transactions each memory has committed. A write bumps it first thing, so
-- something read at count n (a session's last turns) is still exact for a write that finds
-- n + 1: nothing else was written to the memory in between.
ALTER TABLE memories ADD COLUMN writes INTEGER NOT NULL DEFAULT 0;
