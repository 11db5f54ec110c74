"""Principals, keys and tiered connections: who may do what on which memory."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import turngraph
from turngraph.core.access import tier_allows
from turngraph.errors import ConflictError, ForbiddenError, NotFoundError, ValidationError


def test_keys_are_random_hashed_and_revocable(db: turngraph.Database) -> None:
    access = db.access
    assert access.is_empty()
    access.create_principal("bot-1", organization="acme", kind="agent")
    row, key = access.create_key("bot-1", name="laptop")
    other_row, other = access.create_key("bot-1")
    assert key != other
    assert key.startswith(f"tg_{row.id}_")
    assert len(key) > 40
    caller = access.authenticate(key)
    assert caller is not None
    assert caller.principal.id == "bot-1"
    assert caller.key_id == row.id
    assert access.authenticate(key + "x") is None
    assert access.authenticate("") is None
    access.revoke_key(row.id)
    assert access.authenticate(key) is None
    assert access.authenticate(other) is not None
    assert {k.id: k.revoked_at is not None for k in access.list_keys("bot-1")} == {
        row.id: True,
        other_row.id: False,
    }
    with pytest.raises(NotFoundError):
        access.revoke_key("nope")


def test_tiers_are_nested_per_connection_and_org_visibility_reads(
    db: turngraph.Database,
) -> None:
    access = db.access
    private = db.create_memory("private-notes", organization="acme")
    shared = db.create_memory("handbook", organization="acme", visibility="organization")
    elsewhere = db.create_memory("rival", organization="globex", visibility="organization")
    for pid, org in (("reader", "acme"), ("writer", "acme"), ("owner", "acme"), ("ext", "x")):
        access.create_principal(pid, organization=org)
    access.create_principal("root", organization="acme", admin=True)
    rows = {
        m.name: db.store.get_memory(m.name, organization=m.info().organization)
        for m in (private, shared, elsewhere)
    }
    assert access.grant("reader", rows["private-notes"], "read") == "read"
    assert access.grant("writer", rows["private-notes"]) == "read_write"  # the default
    access.grant("owner", rows["private-notes"], "full")

    def tier(pid: str, memory: str) -> str | None:
        caller = turngraph.core.access.Caller(access.principal(pid), "k")
        row = rows[memory]
        assert row is not None
        held = caller.tier_on(db.store, row)
        # The memory and the tier from one read (the HTTP layer's), reached by name.
        reached = caller.reach(db.store, memory)
        if reached is None:  # another organization's, without a connection
            assert held is None
            assert row.organization != caller.principal.organization
        else:
            assert reached == (row, held)
        return held

    assert [tier(p, "private-notes") for p in ("reader", "writer", "owner", "ext", "root")] == [
        "read",
        "read_write",
        "full",
        None,
        "full",
    ]
    # Organization visibility: every principal of that organization reads; no one else.
    assert tier("ext", "handbook") is None
    assert tier("reader", "handbook") == "read"
    assert tier("reader", "rival") is None
    assert tier_allows("full", "read")
    assert not tier_allows("read", "read_write")
    assert not tier_allows(None, "read")
    caller = turngraph.core.access.Caller(access.principal("writer"), "k")
    row = rows["private-notes"]
    assert row is not None
    with pytest.raises(ForbiddenError, match="needs the 'full' tier"):
        caller.require(db.store, row, "full")
    with pytest.raises(ForbiddenError, match="needs the 'full' tier"):
        caller.open(db.store, "private-notes", "full")
    assert caller.open(db.store, "private-notes", "read_write") == (row, "read_write")
    access.revoke_grant("writer", row)
    with pytest.raises(ForbiddenError, match="no connection"):
        caller.require(db.store, row, "read")
    with pytest.raises(ForbiddenError, match="no connection"):
        caller.open(db.store, "private-notes", "read")
    with pytest.raises(NotFoundError, match="no memory named 'rival'"):
        caller.open(db.store, "rival", "read")  # another organization's reads as unknown
    assert {(g.principal_id, g.memory, g.tier) for g in access.list_grants()} == {
        ("reader", "private-notes", "read"),
        ("owner", "private-notes", "full"),
    }


def test_a_name_means_the_callers_organizations_memory_or_one_it_is_connected_to(
    db: turngraph.Database,
) -> None:
    access = db.access
    ours = db.create_memory("notes", organization="acme", retrieval={"embedder": "none"})
    theirs = db.create_memory("notes", organization="globex", retrieval={"embedder": "none"})
    db.create_memory("wiki", organization="globex", retrieval={"embedder": "none"})
    with pytest.raises(ConflictError):
        db.create_memory("notes", organization="acme", retrieval={"embedder": "none"})
    for pid, org, admin in (
        ("ann", "acme", False),
        ("boss", "acme", True),
        ("gus", "globex", False),
    ):
        access.create_principal(pid, organization=org, admin=admin)

    def caller(pid: str) -> turngraph.core.access.Caller:
        return turngraph.core.access.Caller(access.principal(pid), "k")

    def found(pid: str, name: str) -> tuple[str, str] | None:
        row = caller(pid).find_memory(db.store, name)
        return None if row is None else (row.name, row.organization)

    assert found("ann", "notes") == ("notes", "acme")
    assert found("gus", "notes") == ("notes", "globex")
    assert found("ann", "wiki") is None  # another organization's: as if nobody used the name
    wiki = db.store.get_memory("wiki", organization="globex")
    assert wiki is not None
    # An admin holds every memory of its own organization, not of others.
    assert caller("boss").tier_on(db.store, wiki) is None
    # A connection reaches another organization's memory by its name...
    access.grant("ann", wiki, "read")
    assert found("ann", "wiki") == ("wiki", "globex")
    assert caller("ann").tier_on(db.store, wiki) == "read"
    # ... unless the name already means another memory to the principal.
    theirs_row = db.store.get_memory("notes", organization="globex")
    assert theirs_row is not None
    # Were it connected to both (the store allows it), its own organization's would win.
    ours_row = db.store.get_memory("notes", organization="acme")
    assert ours_row is not None
    for pid, other in (("ann", theirs_row), ("gus", ours_row)):  # own sorts first, then last
        db.store.set_grant(pid, other.id, "full", datetime.now(UTC))
        own = caller(pid).principal.organization
        assert found(pid, "notes") == ("notes", own)
        mine = db.store.get_memory("notes", organization=own)
        assert mine is not None
        # The grant on the other memory does not count on its own organization's.
        assert caller(pid).reach(db.store, "notes") == (mine, None)
        assert db.store.remove_grant(pid, other.id)
    with pytest.raises(ConflictError, match="already reaches a memory named 'notes'"):
        access.grant("ann", theirs_row, "read")
    assert (ours.info().organization, theirs.info().organization) == ("acme", "globex")
    assert db.memory("notes", organization="globex").info().organization == "globex"


def test_bad_access_input_is_rejected(db: turngraph.Database) -> None:
    access = db.access
    with pytest.raises(ValidationError, match="principal id"):
        access.create_principal("no spaces")
    with pytest.raises(ValidationError, match="kind"):
        access.create_principal("a", kind="robot")
    access.create_principal("a")
    with pytest.raises(ConflictError):
        access.create_principal("a")
    with pytest.raises(NotFoundError):
        access.create_key("ghost")
    with pytest.raises(ValidationError, match="at least 16"):
        access.create_key("a", secret="short")
    memory = db.create_memory("m")
    row = db.store.get_memory(memory.name)
    assert row is not None
    with pytest.raises(ValidationError, match="tier"):
        access.grant("a", row, "admin")
    with pytest.raises(ValidationError, match="organization"):
        db.create_memory("n", organization="bad org")


def test_http_idempotency_records_claim_replay_and_expire(db: turngraph.Database) -> None:
    store = db.store
    now = datetime.now(UTC)
    alive = {"owner": "host:1:a", "abandoned": lambda owner: False}
    window = {"expired_before": now - timedelta(hours=24), **alive}
    assert store.idempotency_claim("m:p", "k1", "fp", now=now, **window) is None
    pending = store.idempotency_claim("m:p", "k1", "fp", now=now, **window)
    assert pending is not None
    assert pending.state == "pending"
    store.idempotency_finish("m:p", "k1", 200, '{"ok":true}')
    done = store.idempotency_claim("m:p", "k1", "other", now=now, **window)
    assert done is not None
    assert (done.state, done.status, done.fingerprint) == ("done", 200, "fp")
    # A released claim (a failed write) frees the key; another scope never sees it.
    assert store.idempotency_claim("m:p", "k2", "fp", now=now, **window) is None
    store.idempotency_release("m:p", "k2")
    assert store.idempotency_claim("m:p", "k2", "fp", now=now, **window) is None
    assert store.idempotency_claim("m:q", "k1", "fp", now=now, **window) is None
    # After 24 hours a record is forgotten.
    later = now + timedelta(hours=25)
    aged = {"expired_before": later - timedelta(hours=24), **alive}
    assert store.idempotency_claim("m:p", "k1", "new", now=later, **aged) is None
    # A pending claim is taken over only once its owner is gone, however old it is.
    assert store.idempotency_claim("m:p", "k3", "fp", now=now, **window) is None
    hour = now + timedelta(hours=1)
    assert store.idempotency_claim("m:p", "k3", "fp", now=hour, **window) is not None
    gone = {"expired_before": now - timedelta(hours=24), "owner": "host:2:b"}
    assert (
        store.idempotency_claim(
            "m:p", "k3", "fp", now=now, abandoned=lambda o: o == "host:1:a", **gone
        )
        is None
    )
