-- Recall asks whether a person the query names speaks in the memory.
CREATE INDEX turns_by_speaker ON turns (memory_id, speaker COLLATE NOCASE);
