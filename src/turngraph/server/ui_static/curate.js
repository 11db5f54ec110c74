// Curation: edit or delete an observation (its prune shown first), merge proposals side by
// side, delete an entity, forget by query (its dry run first). Controls appear only at the
// tiers that allow them; the server refuses the rest anyway.

import { allows, api, ApiError, m, memoryInfo, tierOn } from "./api.js";
import { pager } from "./browse.js";
import { fill, h, note, route, section, table, typeBadge, when } from "./dom.js";

const PROPOSALS = 10;

// What an action said ("Saved.", "Merged ..."): the page is drawn again after the action,
// its status line with it, so the message is kept here and shown by the redrawn page.
let pending = null;

function statusLine() {
  const status = h("div", { id: "curate-status" });
  if (pending) fill(status, note(pending));
  pending = null;
  return status;
}

function redrawSaying(message) {
  pending = message;
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}

function failure(err) {
  return h("div", { class: "error", role: "alert" }, err instanceof ApiError ? err.message : String(err));
}

function pruned(result) {
  return [
    result.pruned_entities.length ? h("p", {}, "Entities removed: ", result.pruned_entities.join(", ")) : h("p", {}, "No entity would be removed."),
    result.pruned_relationships.length
      ? h("ul", {}, result.pruned_relationships.map((r) => h("li", {}, `${r.source} ${r.type} ${r.target}`)))
      : h("p", {}, "No relationship would be removed."),
  ];
}

// -- an observation --------------------------------------------------------------------------

export async function observation(main, memory, rest) {
  const slug = rest.join("/");
  const [o, tier] = await Promise.all([api("GET", m(memory, "observations", encodeURIComponent(slug))), tierOn(memory)]);
  const status = statusLine();
  fill(
    main,
    h("h1", {}, o.title),
    h("p", { class: "muted" }, `${o.category} · observed ${when(o.observed_at)} · updated ${when(o.updated_at)} · ${o.slug}`),
    o.tags.length ? h("p", {}, "Tags: ", o.tags.join(", ")) : null,
    h("div", { class: "content", id: "observation-content" }, o.content),
    section("Entities", h("ul", { class: "flat" }, o.entities.map((n) => h("li", {}, h("a", { href: route("m", memory, "entity", n) }, n))))),
    section(
      "Relationships",
      table(["Source", "Type", "Target"], o.relationships.map((r) => [r.source, r.type, r.target])),
    ),
    allows(tier, "full") ? observationControls(memory, o, status) : null,
    status,
  );
}

function observationControls(memory, o, status) {
  const title = h("input", { name: "title", value: o.title });
  const content = h("textarea", { name: "content", rows: 6 }, o.content);
  const category = h("input", { name: "category", value: o.category });
  const edit = h(
    "form",
    { class: "card", id: "edit-observation" },
    h("h2", {}, "Edit"),
    h("label", {}, "Title", title),
    h("label", {}, "Content", content),
    h("label", {}, "Category", category),
    h("button", { type: "submit" }, "Save"),
  );
  edit.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api("PATCH", m(memory, "observations", encodeURIComponent(o.slug)), {
        json: { title: title.value, content: content.value, category: category.value },
      });
      redrawSaying("Saved.");
    } catch (err) {
      fill(status, failure(err));
    }
  });
  const preview = h("div", { id: "delete-preview" });
  const remove = h("button", { type: "button", class: "danger", id: "delete-observation" }, "Delete…");
  remove.addEventListener("click", async () => {
    const path = m(memory, "observations", encodeURIComponent(o.slug));
    try {
      const dry = await api("DELETE", path, { query: { dry_run: true } });
      const confirm = h("button", { type: "button", class: "danger", id: "confirm-delete" }, "Delete it");
      confirm.addEventListener("click", async () => {
        try {
          await api("DELETE", path);
          location.hash = route("m", memory);
        } catch (err) {
          fill(status, failure(err));
        }
      });
      fill(preview, h("p", {}, "Deleting this observation would also remove what only it backs:"), pruned(dry), confirm);
    } catch (err) {
      fill(status, failure(err));
    }
  });
  return [edit, h("div", { class: "card" }, h("h2", {}, "Delete"), remove, preview)];
}

// -- an entity -------------------------------------------------------------------------------

export function entityDelete(memory, e) {
  const status = h("div");
  const button = h("button", { type: "button", class: "danger", id: "delete-entity" }, "Delete entity…");
  button.addEventListener("click", () => {
    const confirm = h("button", { type: "button", class: "danger", id: "confirm-delete-entity" }, `Delete ${e.name}, its attributes and relationships`);
    confirm.addEventListener("click", async () => {
      try {
        await api("DELETE", m(memory, "entities", encodeURIComponent(e.name)), { query: { type: e.type } });
        location.hash = route("m", memory, "entities");
      } catch (err) {
        fill(status, failure(err));
      }
    });
    fill(status, h("p", {}, `The observations that name ${e.name} stay.`), confirm);
  });
  return h("div", { class: "card" }, h("h2", {}, "Delete"), button, status);
}

// -- merge proposals -------------------------------------------------------------------------

export async function proposals(main, memory, _rest, params) {
  const offset = Number(params.get("offset") || 0);
  const [list, info] = await Promise.all([
    api("GET", m(memory, "proposals"), { query: { limit: PROPOSALS + 1, offset } }),
    memoryInfo(memory),
  ]);
  const tier = info.tier;
  const shown = list.slice(0, PROPOSALS);
  const sides = await Promise.all(
    shown.map((p) =>
      Promise.all([p.canonical, p.duplicate].map((n) => api("GET", m(memory, "entities", encodeURIComponent(n))).catch(() => null))),
    ),
  );
  const status = statusLine();
  const consolidate = allows(tier, "read_write") ? h("button", { type: "button", id: "consolidate" }, "Look for merges") : null;
  if (consolidate)
    consolidate.addEventListener("click", async () => {
      try {
        const found = await api("POST", m(memory, "consolidate"));
        redrawSaying(`${found.length} proposals.`);
      } catch (err) {
        fill(status, failure(err));
      }
    });
  fill(
    main,
    h("h1", {}, "Merge proposals"),
    consolidate,
    status,
    note(`${info.open_proposals} open proposals, oldest first.`),
    shown.length ? shown.map((p, i) => proposalCard(memory, p, sides[i], tier, status)) : note("No open proposal."),
    pager(route("m", memory, "proposals"), offset, PROPOSALS, list.length > PROPOSALS),
  );
}

function side(memory, label, e, name) {
  if (!e) return h("div", { class: "side" }, h("h3", {}, label), h("p", {}, name));
  return h(
    "div",
    { class: "side" },
    h("h3", {}, label),
    h("p", {}, h("a", { href: route("m", memory, "entity", e.name) }, e.name), " ", typeBadge(e.type)),
    h("p", { class: "description" }, e.description),
    h("p", { class: "muted" }, `degree ${e.degree} · ${e.observations.length} observations`),
    h("ul", {}, e.relationships.slice(0, 8).map((r) => h("li", {}, `${r.source} ${r.type} ${r.target}`))),
  );
}

function proposalCard(memory, p, [canonical, duplicate], tier, status) {
  const act = async (verb) => {
    try {
      await api("POST", m(memory, "proposals", String(p.id), verb));
      redrawSaying(verb === "accept" ? `Merged ${p.duplicate} into ${p.canonical}.` : `Rejected merging ${p.duplicate}.`);
    } catch (err) {
      fill(status, failure(err));
    }
  };
  const buttons = [];
  if (allows(tier, "full")) {
    const b = h("button", { type: "button", class: "accept" }, "Accept merge");
    b.addEventListener("click", () => act("accept"));
    buttons.push(b);
  }
  if (allows(tier, "read_write")) {
    const b = h("button", { type: "button", class: "reject" }, "Reject");
    b.addEventListener("click", () => act("reject"));
    buttons.push(b);
  }
  return h(
    "div",
    { class: "card proposal", dataset: { id: String(p.id) } },
    h("p", {}, h("b", {}, `Merge ${p.duplicate} into ${p.canonical}?`), ` score ${p.score.toFixed(2)} · ${p.reasons.join("; ")}`),
    h("div", { class: "sides" }, side(memory, "Keep", canonical, p.canonical), side(memory, "Merge in", duplicate, p.duplicate)),
    buttons,
  );
}

// -- forget ----------------------------------------------------------------------------------

export async function forgetPage(main, memory) {
  const tier = await tierOn(memory);
  if (!allows(tier, "full")) {
    fill(main, h("h1", {}, "Forget"), note(`Forgetting needs the full tier; your key has ${tier} on this memory.`));
    return;
  }
  const input = h("input", { name: "query", placeholder: "every observation holding all these words", class: "wide", required: true });
  const purge = h("input", { type: "checkbox", name: "purge" });
  const out = h("div", { id: "forget-result" });
  const form = h(
    "form",
    { class: "card", id: "forget-form" },
    h("div", { class: "row" }, input, h("button", { type: "submit" }, "Preview")),
    h("label", { class: "check" }, purge, " also purge superseded versions they set"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { query: input.value.trim(), purge: purge.checked };
    try {
      const dry = await api("POST", m(memory, "forget"), { json: { ...body, dry_run: true } });
      const go = h("button", { type: "button", class: "danger", id: "confirm-forget" }, `Forget ${dry.deleted} observations`);
      go.disabled = dry.deleted === 0;
      go.addEventListener("click", async () => {
        try {
          const done = await api("POST", m(memory, "forget"), { json: body });
          fill(out, note(`Forgot ${done.deleted} observations; entities removed: ${done.pruned_entities.join(", ") || "none"}.`));
        } catch (err) {
          fill(out, failure(err));
        }
      });
      fill(
        out,
        h("p", {}, `${dry.deleted} observations hold every word:`),
        h("ul", {}, dry.observations.slice(0, 100).map((s) => h("li", {}, h("a", { href: route("m", memory, "obs", s) }, s)))),
        go,
      );
    } catch (err) {
      fill(out, failure(err));
    }
  });
  fill(main, h("h1", {}, "Forget"), form, out);
}
