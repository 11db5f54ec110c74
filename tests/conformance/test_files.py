"""Appendix files: stored per memory, referenced by observations, guarded paths and sizes."""

from __future__ import annotations

import hashlib

import pytest

import turngraph
from turngraph.config import Limits, Settings

from .conftest import Opener


def test_files_are_stored_listed_read_and_deleted(mem: turngraph.Memory) -> None:
    data = b"# Minutes\n\nfull transcript ..."
    stored = mem.put_file(
        "meetings/2024/kickoff.md", data, description="Kickoff transcript", created_by="alice"
    )
    assert stored.filename == "kickoff.md"
    assert stored.content_type == "text/markdown"
    assert stored.size == len(data)
    assert stored.sha256 == hashlib.sha256(data).hexdigest()
    mem.put_file("notes.txt", "héllo", description="A note")
    listed = mem.list_files()
    assert [(f.path, f.size, f.description, f.created_by) for f in listed] == [
        ("meetings/2024/kickoff.md", len(data), "Kickoff transcript", "alice"),
        ("notes.txt", len("héllo".encode()), "A note", "unknown"),
    ]
    assert [f.path for f in mem.list_files("meetings")] == ["meetings/2024/kickoff.md"]
    got = mem.get_file("meetings/2024/kickoff.md")
    assert got.data == data
    assert got.file == stored
    assert mem.delete_file("notes.txt").path == "notes.txt"
    with pytest.raises(turngraph.NotFoundError):
        mem.get_file("notes.txt")


def test_files_belong_to_one_memory(db: turngraph.Database) -> None:
    a, b = db.create_memory("a"), db.create_memory("b")
    a.put_file("x.txt", b"a", description="in a")
    assert b.list_files() == []
    with pytest.raises(turngraph.NotFoundError):
        b.get_file("x.txt")


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/passwd", "absolute"),
        ("C:/Windows/x", "absolute"),
        ("../secrets.txt", "'..'"),
        ("docs/../../x", "'..'"),
        ("docs/./x", "'.'"),
        ("docs//x", "empty segment"),
        ("docs\\x", "'\\\\'"),
        ("", "empty"),
        ("bad\x00name", "control character"),
    ],
)
def test_unsafe_paths_are_rejected_clearly(mem: turngraph.Memory, path: str, reason: str) -> None:
    with pytest.raises(turngraph.ValidationError, match=reason):
        mem.put_file(path, b"x", description="d")
    assert mem.list_files() == []


def test_a_file_over_the_size_limit_is_rejected(backend: Opener) -> None:
    mem = backend(Settings(limits=Limits(file_bytes=1024))).create_memory("m")
    with pytest.raises(turngraph.TooLargeError, match="1,025 bytes; the limit is 1,024"):
        mem.put_file("big.bin", b"x" * 1025, description="too big")
    mem.put_file("ok.bin", b"x" * 1024, description="fits")


def test_a_file_needs_a_description_and_is_not_overwritten_by_accident(
    mem: turngraph.Memory,
) -> None:
    with pytest.raises(turngraph.ValidationError, match="description"):
        mem.put_file("a.txt", b"x", description=" ")
    mem.put_file("a.txt", b"v1", description="first")
    with pytest.raises(turngraph.ConflictError, match="overwrite"):
        mem.put_file("a.txt", b"v2", description="second")
    mem.put_file("a.txt", b"v2", description="second", overwrite=True)
    assert mem.get_file("a.txt").data == b"v2"


def test_observations_reference_files_by_path_and_guard_them(mem: turngraph.Memory) -> None:
    with pytest.raises(turngraph.ValidationError, match="store it with put_file first"):
        mem.add_observation(title="Summary", content="See appendix.", files=["report.pdf"])
    mem.put_file("report.pdf", b"%PDF-1.7", description="Quarterly report")
    slug = mem.add_observation(
        title="Summary", content="See appendix.", files=["report.pdf"]
    ).observation.slug
    assert mem.get_observation(slug).files == ["report.pdf"]
    with pytest.raises(turngraph.ConflictError, match=slug):
        mem.delete_file("report.pdf")
    res = mem.update_observation(slug, remove_files=["report.pdf"])
    assert res.observation.files == []
    mem.delete_file("report.pdf")
