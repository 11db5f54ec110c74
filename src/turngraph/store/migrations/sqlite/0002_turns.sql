-- Turns and sessions, versioned attributes, and the other facts extraction yields.
ALTER TABLE entities ADD COLUMN memory_category TEXT NOT NULL DEFAULT 'knowledge';
ALTER TABLE relationships ADD COLUMN memory_category TEXT NOT NULL DEFAULT 'knowledge';
ALTER TABLE relationships ADD COLUMN valid_from TEXT;
ALTER TABLE relationships ADD COLUMN valid_until TEXT;

CREATE TABLE sessions (
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT 'null',
    turn_count INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    PRIMARY KEY (memory_id, id)
);

-- A turn is an observation (category 'turn') plus its place in a session.
CREATE TABLE turns (
    memory_id INTEGER NOT NULL,
    id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    speaker TEXT,
    observation_id INTEGER NOT NULL UNIQUE REFERENCES observations(id) ON DELETE CASCADE,
    extracted TEXT NOT NULL,               -- full | triples | none | failed
    labels TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    PRIMARY KEY (memory_id, id),
    FOREIGN KEY (memory_id, session_id) REFERENCES sessions(memory_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX turns_by_session ON turns (memory_id, session_id, seq);

-- Versioned scalar facts about entities. A superseded row keeps valid_until and superseded_by.
CREATE TABLE attributes (
    memory_id INTEGER NOT NULL,
    id TEXT NOT NULL,
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    memory_category TEXT NOT NULL,
    observation_id INTEGER NOT NULL REFERENCES observations(id) ON DELETE CASCADE,
    valid_from TEXT NOT NULL,
    valid_until TEXT,
    supersedes TEXT,
    superseded_by TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (memory_id, id)
);
CREATE INDEX attributes_by_entity ON attributes (entity_id, key, valid_from);
CREATE INDEX attributes_current ON attributes (memory_id, memory_category) WHERE valid_until IS NULL;
CREATE INDEX attributes_by_observation ON attributes (observation_id);

-- Actions, instructions and uncertainties: what a turn said, kept apart from facts.
CREATE TABLE turn_facts (
    memory_id INTEGER NOT NULL,
    id TEXT NOT NULL,
    kind TEXT NOT NULL,                    -- action | instruction | uncertainty
    observation_id INTEGER NOT NULL REFERENCES observations(id) ON DELETE CASCADE,
    memory_category TEXT NOT NULL,
    data TEXT NOT NULL,                    -- JSON, shape by kind
    dedup TEXT NOT NULL,                   -- normalized text: one active instruction per wording
    happened_at TEXT NOT NULL,             -- occurred_at for actions, else the turn's time
    active INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (memory_id, id)
);
CREATE INDEX turn_facts_by_kind ON turn_facts (memory_id, kind, happened_at);
CREATE INDEX turn_facts_by_observation ON turn_facts (observation_id);
