-- Principals, their keys, and their connections (grants) to memories.
CREATE TABLE principals (
    id TEXT PRIMARY KEY,
    organization TEXT NOT NULL,
    display_name TEXT NOT NULL,
    kind TEXT NOT NULL,                    -- agent | human | service
    admin INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);

CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,                   -- public part, shown in listings
    principal_id TEXT NOT NULL REFERENCES principals(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,         -- sha256 of the whole key; the key is never stored
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE INDEX api_keys_by_principal ON api_keys (principal_id);

CREATE TABLE grants (
    principal_id TEXT NOT NULL REFERENCES principals(id) ON DELETE CASCADE,
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    tier TEXT NOT NULL,                    -- read | read_write | full
    created_at TEXT NOT NULL,
    PRIMARY KEY (principal_id, memory_id)
);
CREATE INDEX grants_by_memory ON grants (memory_id);

-- The organization a memory belongs to (organization visibility is scoped to it).
ALTER TABLE memories ADD COLUMN organization TEXT NOT NULL DEFAULT 'default';

-- HTTP Idempotency-Key records: a response replayed for 24 hours; 'pending' while in flight.
CREATE TABLE http_idempotency (
    scope TEXT NOT NULL,                   -- memory and principal
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL,                   -- pending | done
    status INTEGER,
    body TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX http_idempotency_by_age ON http_idempotency (created_at);
