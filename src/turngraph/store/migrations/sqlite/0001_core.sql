-- The memory graph: observations back entities and relationships.
CREATE TABLE memories (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    visibility TEXT NOT NULL,
    retrieval TEXT NOT NULL,               -- JSON, fixed at creation
    created_at TEXT NOT NULL,
    seq INTEGER NOT NULL DEFAULT 0         -- write counter: orders assertions, newest wins
);

CREATE TABLE observations (
    id INTEGER PRIMARY KEY,
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    slug TEXT NOT NULL,
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    category TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '[]',
    observed_at TEXT NOT NULL,
    confidence REAL,
    source TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (memory_id, slug)
);
CREATE INDEX observations_by_category ON observations (memory_id, category, observed_at);
CREATE INDEX observations_by_time ON observations (memory_id, observed_at);

CREATE TABLE observation_tags (
    observation_id INTEGER NOT NULL REFERENCES observations(id) ON DELETE CASCADE,
    memory_id INTEGER NOT NULL,
    tag TEXT NOT NULL,
    PRIMARY KEY (observation_id, tag)
);
CREATE INDEX observation_tags_by_tag ON observation_tags (memory_id, tag);

-- Slugs of deleted observations are never handed out again, so an old slug cannot silently
-- point at a different note.
CREATE TABLE retired_slugs (
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    slug TEXT NOT NULL,
    deleted_at TEXT NOT NULL,
    PRIMARY KEY (memory_id, slug)
);

CREATE TABLE entities (
    id INTEGER PRIMARY KEY,
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    key TEXT NOT NULL,                     -- normalized name
    name TEXT NOT NULL,                    -- display name
    type TEXT NOT NULL,
    description TEXT NOT NULL,
    retrieval_queries TEXT NOT NULL DEFAULT '[]',
    degree INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (memory_id, key)
);
CREATE INDEX entities_by_type ON entities (memory_id, type);

-- Names merged away by an accepted consolidation keep resolving to the canonical entity.
CREATE TABLE entity_aliases (
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    PRIMARY KEY (memory_id, key)
);
CREATE INDEX entity_aliases_by_entity ON entity_aliases (entity_id);

-- What each observation says about an entity. explicit = 0: linked only as the endpoint of a
-- relationship the observation backs (no description of its own).
CREATE TABLE observation_entities (
    observation_id INTEGER NOT NULL REFERENCES observations(id) ON DELETE CASCADE,
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    explicit INTEGER NOT NULL,
    type TEXT,
    description TEXT,
    retrieval_queries TEXT,
    seq INTEGER NOT NULL,
    PRIMARY KEY (observation_id, entity_id)
);
CREATE INDEX observation_entities_by_entity ON observation_entities (entity_id, seq);
-- Folding an entity reads the newest assertion carrying each field: these partial indexes
-- keep that a short index walk however many observations name the entity.
CREATE INDEX observation_entities_asserted ON observation_entities (entity_id, seq)
    WHERE explicit = 1;
CREATE INDEX observation_entities_typed ON observation_entities (entity_id, seq)
    WHERE explicit = 1 AND type IS NOT NULL;
CREATE INDEX observation_entities_queries ON observation_entities (entity_id, seq)
    WHERE explicit = 1 AND retrieval_queries != '[]';

CREATE TABLE relationships (
    id INTEGER PRIMARY KEY,
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    source_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    target_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    description TEXT NOT NULL DEFAULT '',
    weight REAL NOT NULL DEFAULT 1.0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (source_id, type, target_id)
);
CREATE INDEX relationships_by_target ON relationships (target_id);

CREATE TABLE observation_relationships (
    observation_id INTEGER NOT NULL REFERENCES observations(id) ON DELETE CASCADE,
    relationship_id INTEGER NOT NULL REFERENCES relationships(id) ON DELETE CASCADE,
    description TEXT,
    weight REAL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (observation_id, relationship_id)
);
CREATE INDEX observation_relationships_by_rel ON observation_relationships (relationship_id, seq);
CREATE INDEX observation_relationships_described ON observation_relationships
    (relationship_id, seq) WHERE description IS NOT NULL;
CREATE INDEX observation_relationships_weighted ON observation_relationships
    (relationship_id, seq) WHERE weight IS NOT NULL;

CREATE TABLE files (
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    filename TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    description TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (memory_id, path)
);

CREATE TABLE observation_files (
    observation_id INTEGER NOT NULL REFERENCES observations(id) ON DELETE CASCADE,
    memory_id INTEGER NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY (observation_id, path)
);
CREATE INDEX observation_files_by_path ON observation_files (memory_id, path);

CREATE TABLE idempotency (
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    operation TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    slug TEXT,
    result TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (memory_id, key)
);
CREATE INDEX idempotency_by_slug ON idempotency (memory_id, slug);

CREATE TABLE merge_proposals (
    id INTEGER PRIMARY KEY,
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    canonical_key TEXT NOT NULL,
    canonical_name TEXT NOT NULL,
    duplicate_key TEXT NOT NULL,
    duplicate_name TEXT NOT NULL,
    type TEXT NOT NULL,
    reasons TEXT NOT NULL,
    score REAL NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    decided_at TEXT
);
CREATE INDEX merge_proposals_by_status ON merge_proposals (memory_id, status);

-- Rejected pairs (by normalized name, smaller first) are never proposed again.
CREATE TABLE merge_rejections (
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    key_a TEXT NOT NULL,
    key_b TEXT NOT NULL,
    rejected_at TEXT NOT NULL,
    PRIMARY KEY (memory_id, key_a, key_b)
);
