"""The web inspector in a real browser (Debian's Chromium), against a live server seeded with
a real conversation: signing in, recall, an entity's history, the graph, curation by tier,
markup shown as text, and no console error on any page."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import httpx

from tests.browser.conftest import Inspector
from tests.browser.seed import MEMORY
from tests.http.conftest import Running

M = f"#/m/{MEMORY}"


def _api(live: Running, method: str, path: str, **kw: object) -> httpx.Response:
    return httpx.request(
        method,
        f"{live.url}/v1/memories/{MEMORY}{path}",
        headers={"Authorization": f"Bearer {live.admin_key}"},
        **kw,  # type: ignore[arg-type]
    )


def test_sign_in_lists_the_memories_the_key_reaches(inspector: Inspector, live: Running) -> None:
    page = inspector.page
    page.goto(f"{live.url}/ui")
    page.fill("#key", "tg_not_a_key")
    page.click("#signin button[type=submit]")
    page.wait_for_selector("#signin-error:not([hidden])")
    assert "not valid" in inspector.text("#signin-error")
    inspector.errors.clear()  # the refused sign-in's 401, expected

    inspector.sign_in(live.admin_key)
    row = inspector.text("#memories")
    info = _api(live, "GET", "").json()
    assert MEMORY in row
    for field in ("observations", "entities", "sessions", "turns", "open_proposals"):
        assert str(info[field]) in row
    # The key is held by the tab only: not in the URL, not in a cookie.
    assert live.admin_key not in page.url
    assert page.context.cookies() == []
    assert page.evaluate("sessionStorage.getItem('turngraph.key')") == live.admin_key
    assert inspector.errors == []


def test_recall_shows_the_api_numbers_and_opens_a_hits_turn(
    inspector: Inspector, live: Running
) -> None:
    inspector.sign_in(live.admin_key)
    inspector.open(f"{M}/recall")
    inspector.page.fill("#query", "where does Maya live")
    inspector.page.click("#recall-form button[type=submit]")
    inspector.page.wait_for_selector("#hits")
    inspector.ready()
    same = _api(live, "POST", "/recall", json={"query": "where does Maya live"}).json()
    shown = [s.strip() for s in inspector.page.locator("#hits .score").all_inner_texts()]
    assert shown == [f"{h['score']:.3f}" for h in same["hits"]]
    entities = inspector.text("#recall-entities")
    for e in same["entities"]:
        assert e["name"] in entities
        assert f"{e['score']:.3f}" in entities

    first = next(i for i, h in enumerate(same["hits"]) if h["source"].get("turn_id"))
    inspector.page.locator("#hits .hit").nth(first).locator("a.hit-link").click()
    inspector.ready()
    turn = same["hits"][first]["source"]["turn_id"]
    assert inspector.page.evaluate("location.hash") == f"{M}/turn/{quote(turn, safe='')}"
    stored = live.db.memory(MEMORY).get_turn(turn).turn.content
    assert inspector.text("#turn-content") == stored
    assert inspector.errors == []


def test_an_entity_shows_both_versions_of_a_corrected_attribute(
    inspector: Inspector, live: Running
) -> None:
    inspector.sign_in(live.admin_key)
    inspector.open(f"{M}/entity/Maya")
    timeline = inspector.page.locator('.attribute[data-key="job_title"] .version')
    assert timeline.count() == 2
    old, new = timeline.nth(0), timeline.nth(1)
    assert old.locator(".value").inner_text() == "Head of Platform"
    assert "ended" in (old.get_attribute("class") or "")
    assert "until 2024-05-10 17:00:00Z" in old.inner_text()
    assert "corrected to CTO" in old.inner_text()  # the correction that ended it
    assert new.locator(".value").inner_text() == "CTO"
    assert "(current)" in new.inner_text()
    # Each version links to the turn that set it.
    new.locator("a").click()
    inspector.ready()
    assert "promoted to CTO" in inspector.text("#turn-content")
    assert "Head of Platform → CTO" in inspector.text()
    assert inspector.errors == []


def test_the_graph_draws_an_entity_and_expands_a_neighbor(
    inspector: Inspector, live: Running
) -> None:
    inspector.sign_in(live.admin_key)
    inspector.open(f"{M}/graph/Maya")
    status = inspector.page.locator("#graph-status")
    around = _api(live, "GET", "/graph", params={"entity": "Maya"}).json()
    assert status.get_attribute("data-nodes") == str(len(around["nodes"]))
    assert inspector.page.locator("#graph canvas").count() > 0  # Cytoscape drew it
    for t in {n["type"] for n in around["nodes"]}:
        assert t in inspector.text("#legend")

    inspector.page.click("#node-list summary")
    inspector.page.click('#node-list button[data-name="Ana"]')
    inspector.page.click("#expand")
    inspector.page.wait_for_selector("#expand:has-text('Expanded')")
    ana = _api(live, "GET", "/graph", params={"entity": "Ana"}).json()
    union = {n["name"] for n in around["nodes"]} | {n["name"] for n in ana["nodes"]}
    assert len(union) > len(around["nodes"])
    assert status.get_attribute("data-nodes") == str(len(union))
    # A node opens its entity page.
    inspector.page.click("#open-node")
    inspector.ready()
    assert inspector.page.locator("h1").inner_text().startswith("Ana")
    assert inspector.errors == []


def test_a_full_key_accepts_a_merge_proposal(inspector: Inspector, live: Running) -> None:
    inspector.sign_in(live.admin_key)
    inspector.open(f"{M}/proposals")
    card = inspector.page.locator(".proposal").first
    proposal = int(card.get_attribute("data-id") or 0)
    assert card.locator(".side").count() == 2  # side by side
    card.locator("button.accept").click()
    # The page draws itself again without the accepted card; the message outlives the redraw
    # (it was once written before it and wiped by it, which a waiting test could miss).
    inspector.page.wait_for_selector(f".proposal[data-id='{proposal}']", state="detached")
    inspector.ready()
    assert "Merged" in inspector.text("#curate-status")
    decided = _api(live, "GET", "/proposals", params={"status": "all"}).json()
    assert next(p for p in decided if p["id"] == proposal)["status"] == "accepted"
    assert inspector.errors == []


def test_a_read_key_sees_no_edit_control_and_is_refused(
    inspector: Inspector, live: Running
) -> None:
    inspector.sign_in(live.keys["reader"])
    mem = live.db.memory(MEMORY)
    slug = mem.list_turns("session:kickoff").turns[0].slug
    controls = "button.accept, button.reject, #consolidate, #edit-observation, "
    controls += "#delete-observation, #delete-entity, #forget-form"
    for page in ("/proposals", f"/obs/{slug}", "/entity/Maya", "/forget"):
        inspector.open(M + page)
        assert inspector.page.locator(controls).count() == 0, page
    assert "needs the full tier" in inspector.text()

    open_ = list(mem.list_proposals("open"))
    assert open_, "the seed leaves an open proposal"
    status, message = inspector.page.evaluate(
        """async (id) => {
            const r = await fetch(`/v1/memories/demo/proposals/${id}/accept`, {
              method: "POST",
              headers: {Authorization: `Bearer ${sessionStorage.getItem("turngraph.key")}`},
            });
            return [r.status, (await r.json()).message];
        }""",
        open_[0].id,
    )
    assert status == 403
    assert "full" in message
    assert mem.list_proposals("open")[0].id == open_[0].id  # nothing changed
    # The refusal is the only error the console saw.
    assert len(inspector.errors) == 1
    assert "403" in inspector.errors[0]


def test_a_read_write_key_may_reject_but_not_accept_nor_edit(
    inspector: Inspector, live: Running
) -> None:
    inspector.sign_in(live.keys["writer"])
    inspector.open(f"{M}/proposals")
    assert inspector.page.locator("button.reject").count() > 0
    assert inspector.page.locator("#consolidate").count() == 1
    assert inspector.page.locator("button.accept").count() == 0
    slug = live.db.memory(MEMORY).list_turns("session:kickoff").turns[0].slug
    inspector.open(f"{M}/obs/{slug}")
    assert inspector.page.locator("#edit-observation, #delete-observation").count() == 0
    assert inspector.errors == []


def test_markup_in_a_turn_is_shown_as_text(inspector: Inspector, live: Running) -> None:
    inspector.sign_in(live.admin_key)
    inspector.open(f"{M}/session/{quote('session:followup', safe='')}")
    turns = inspector.text("#turns")
    assert "<script>document.title='pwned'</script>" in turns
    assert "<img src=x onerror=\"document.title='pwned'\">" in turns
    assert inspector.page.locator(".content script, .content img, .content b").count() == 0
    inspector.open(f"{M}/file/notes/acme.md")
    assert "<script>" in inspector.text("#file-text")
    with inspector.page.expect_download() as download:
        inspector.page.click("#download")
    saved = download.value
    assert saved.suggested_filename == "acme.md"
    assert Path(saved.path()).read_bytes() == live.db.memory(MEMORY).get_file("notes/acme.md").data
    assert inspector.page.title() == "turngraph inspector"
    assert inspector.errors == []


def test_every_page_draws_without_a_console_error(inspector: Inspector, live: Running) -> None:
    inspector.sign_in(live.admin_key)
    mem = live.db.memory(MEMORY)
    turn = mem.list_turns("session:kickoff").turns[0]
    pages = [
        "#/",
        M,
        f"{M}/recall?q=Ana",
        f"{M}/entities",
        f"{M}/entity/Sam",
        f"{M}/graph/Sam",
        f"{M}/sessions",
        f"{M}/session/{quote('session:kickoff', safe='')}",
        f"{M}/turn/{quote(turn.id, safe='')}",
        f"{M}/obs/{turn.slug}",
        f"{M}/state",
        f"{M}/state?as_of=2024-04-01T00:00:00Z",
        f"{M}/proposals",
        f"{M}/forget",
        f"{M}/files",
        f"{M}/file/notes/acme.md",
    ]
    for hash_ in pages:
        inspector.open(hash_)
        assert inspector.page.locator("main .error").count() == 0, hash_
        assert re.search(r"\S", inspector.text()), hash_
    assert inspector.errors == []


def test_curation_edits_and_deletes_an_observation_after_its_preview(
    inspector: Inspector, live: Running
) -> None:
    mem = live.db.memory(MEMORY)
    slug = mem.add_observation(
        title="Draft",
        content="Quillon Vane is a working title.",
        entities=[{"name": "Quillon Vane", "type": "project", "description": "A working title"}],
    ).observation.slug
    inspector.sign_in(live.admin_key)
    inspector.open(f"{M}/obs/{slug}")
    inspector.page.fill("#edit-observation input[name=title]", "Draft, renamed")
    inspector.page.click("#edit-observation button[type=submit]")
    inspector.page.wait_for_selector("h1:has-text('Draft, renamed')")
    inspector.ready()
    assert inspector.text("#curate-status") == "Saved."
    assert mem.get_observation(slug).title == "Draft, renamed"

    inspector.page.click("#delete-observation")
    inspector.page.wait_for_selector("#confirm-delete")
    assert "Quillon Vane" in inspector.text("#delete-preview")
    assert mem.get_observation(slug).slug == slug  # the preview deleted nothing
    inspector.page.click("#confirm-delete")
    inspector.page.wait_for_selector("#counts")
    assert slug not in list(mem.get_entity("Maya").observations)
    assert all(e.name != "Quillon Vane" for e in mem.list_entities(limit=1000))
    assert inspector.errors == []


def test_forget_shows_its_dry_run_first(inspector: Inspector, live: Running) -> None:
    mem = live.db.memory(MEMORY)
    slug = mem.add_observation(
        title="Scratch", content="Forgettable zucchini memo."
    ).observation.slug
    inspector.sign_in(live.admin_key)
    inspector.open(f"{M}/forget")
    inspector.page.fill("#forget-form input[name=query]", "zucchini memo")
    inspector.page.click("#forget-form button[type=submit]")
    inspector.page.wait_for_selector("#confirm-forget")
    assert slug in inspector.text("#forget-result")
    assert mem.get_observation(slug).slug == slug
    inspector.page.click("#confirm-forget")
    inspector.page.wait_for_selector("#forget-result:has-text('Forgot 1')")
    assert mem.forget("zucchini memo", dry_run=True).deleted == 0
    assert inspector.errors == []
