// Reading pages: the memories, a memory's overview, recall, entities, state and files.

import { allows, api, m, memoryInfo, tierOn } from "./api.js";
import { entityDelete } from "./curate.js";
import { fill, h, note, route, section, table, typeBadge, when, withQuery } from "./dom.js";

const COUNTS = [
  ["observations", "Observations"],
  ["entities", "Entities"],
  ["relationships", "Relationships"],
  ["sessions", "Sessions"],
  ["turns", "Turns"],
  ["files", "Files"],
  ["open_proposals", "Pending proposals"],
];
const PAGE = 50;

export async function memories(main) {
  const list = await api("GET", "/v1/memories");
  fill(
    main,
    h("h1", {}, "Memories"),
    list.length
      ? table(
          ["Memory", "Your tier", ...COUNTS.map(([, label]) => label)],
          list.map((info) => [
            h("a", { href: route("m", info.name) }, info.name),
            info.tier,
            ...COUNTS.map(([field]) => String(info[field])),
          ]),
          { id: "memories" },
        )
      : note("Your key reaches no memory yet."),
  );
}

export async function overview(main, memory) {
  const info = await memoryInfo(memory);
  const top = await api("GET", m(memory, "entities"), { query: { limit: 20 } });
  fill(
    main,
    h("h1", {}, memory),
    h("p", { class: "muted" }, `Your tier: ${info.tier} · ${info.visibility} · created ${when(info.created_at)}`),
    h(
      "div",
      { class: "counts", id: "counts" },
      COUNTS.map(([field, label]) => h("div", { class: "count", dataset: { field } }, h("b", {}, String(info[field])), h("span", {}, label))),
    ),
    section(
      "Retrieval configuration (fixed at creation)",
      table(
        ["Setting", "Value"],
        Object.entries(info.retrieval).map(([k, v]) => [k, v === null ? "none" : String(v)]),
      ),
    ),
    section("Most connected entities", entityTable(memory, top), h("a", { href: route("m", memory, "entities") }, "All entities →")),
  );
}

function entityTable(memory, rows) {
  return table(
    ["Entity", "Type", "Degree", "Description"],
    rows.map((e) => [h("a", { href: route("m", memory, "entity", e.name) }, e.name), typeBadge(e.type), String(e.degree), e.description]),
    { class: "entities" },
  );
}

export async function entities(main, memory, _rest, params) {
  const offset = Number(params.get("offset") || 0);
  const type = params.get("type") || "";
  const rows = await api("GET", m(memory, "entities"), { query: { limit: PAGE + 1, offset, type } });
  const input = h("input", { name: "name", placeholder: "Open an entity by name", required: true });
  const form = h("form", { class: "inline" }, input, h("button", { type: "submit" }, "Open"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = route("m", memory, "entity", input.value.trim());
  });
  fill(
    main,
    h("h1", {}, "Entities"),
    form,
    entityTable(memory, rows.slice(0, PAGE)),
    pager(route("m", memory, "entities"), offset, PAGE, rows.length > PAGE, { type }),
  );
}

export function pager(href, offset, size, more, extra = {}) {
  if (offset === 0 && !more) return null;
  return h(
    "p",
    { class: "pager" },
    offset > 0 ? h("a", { href: withQuery(href, { ...extra, offset: Math.max(0, offset - size) }) }, "← Previous") : null,
    ` from ${offset + 1} `,
    more ? h("a", { href: withQuery(href, { ...extra, offset: offset + size }), class: "next" }, "Next →") : null,
  );
}

// -- recall ----------------------------------------------------------------------------------

const RECALL_FIELDS = ["q", "mode", "k", "session_id", "category", "since", "until", "entity", "as_of"];

export async function recall(main, memory, _rest, params) {
  const value = (name, fallback = "") => params.get(name) || fallback;
  const field = (name, label, attrs = {}) =>
    h("label", {}, label, h("input", { name, value: value(name), ...attrs }));
  const mode = h(
    "select",
    { name: "mode" },
    ["hybrid", "lexical", "dense", "graph"].map((x) => h("option", { value: x, selected: x === value("mode", "hybrid") }, x)),
  );
  const form = h(
    "form",
    { id: "recall-form", class: "card" },
    h("div", { class: "row" }, h("input", { name: "q", value: value("q"), placeholder: "Ask the memory…", class: "wide", id: "query" }), h("button", { type: "submit" }, "Recall")),
    h(
      "details",
      { open: RECALL_FIELDS.slice(3).some((x) => params.get(x)) },
      h("summary", {}, "Mode, k and filters"),
      h(
        "div",
        { class: "grid" },
        h("label", {}, "Mode", mode),
        field("k", "k", { type: "number", min: 1, max: 100, value: value("k", "10") }),
        field("session_id", "Session"),
        field("category", "Category"),
        field("entity", "Entity"),
        field("since", "Since (ISO time)"),
        field("until", "Until (ISO time)"),
        field("as_of", "As of (ISO time)"),
      ),
    ),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form).entries());
    location.hash = withQuery(route("m", memory, "recall"), data);
  });
  const out = h("div", { id: "recall-result" });
  fill(main, h("h1", {}, "Recall"), form, out);
  if (!RECALL_FIELDS.some((x) => params.get(x) && x !== "mode" && x !== "k")) return;
  const body = { mode: value("mode", "hybrid"), k: Number(value("k", "10")) };
  if (params.get("q")) body.query = params.get("q");
  for (const name of RECALL_FIELDS.slice(3)) if (params.get(name)) body[name] = params.get(name);
  const rc = await api("POST", m(memory, "recall"), { json: body });
  fill(out, recallResult(memory, rc));
}

function hitLink(memory, hit) {
  if (hit.source.turn_id) return h("a", { href: route("m", memory, "turn", hit.source.turn_id), class: "hit-link" }, "turn");
  return h("a", { href: route("m", memory, "obs", hit.source.slug), class: "hit-link" }, "observation");
}

function recallResult(memory, rc) {
  return [
    h("p", { class: "muted" }, `mode ${rc.mode} · ${rc.took_ms.toFixed(1)} ms`),
    rc.truncated.length ? h("ul", { class: "notes" }, rc.truncated.map((t) => h("li", {}, `cut: ${t}`))) : null,
    section(
      `Entities (${rc.entities.length})`,
      table(
        ["Score", "Entity", "Type", "Degree", "Description"],
        rc.entities.map((e) => [e.score.toFixed(3), h("a", { href: route("m", memory, "entity", e.name) }, e.name), typeBadge(e.type), String(e.degree), e.description]),
        { id: "recall-entities" },
      ),
    ),
    section(
      `Relationships (${rc.relationships.length})`,
      table(
        ["Source", "Type", "Target"],
        rc.relationships.map((r) => [h("a", { href: route("m", memory, "entity", r.source) }, r.source), r.type, h("a", { href: route("m", memory, "entity", r.target) }, r.target)]),
      ),
    ),
    section(
      `Hits (${rc.hits.length})`,
      h(
        "ol",
        { class: "hits", id: "hits" },
        rc.hits.map((hit) =>
          h(
            "li",
            { class: "hit" },
            h("div", { class: "hit-head" }, h("b", { class: "score" }, hit.score.toFixed(3)), " ", hit.kind, " · ", hit.source.speaker || "", " · ", when(hit.observed_at), " · ", hitLink(memory, hit)),
            h("div", { class: "text" }, hit.text),
            hit.superseded.length ? h("ul", { class: "notes" }, hit.superseded.map((s) => h("li", {}, `superseded: ${s}`))) : null,
          ),
        ),
      ),
    ),
  ];
}

// -- an entity -------------------------------------------------------------------------------

export async function entity(main, memory, rest) {
  const name = rest.join("/");
  const [e, tier] = await Promise.all([api("GET", m(memory, "entities", encodeURIComponent(name))), tierOn(memory)]);
  const st = await api("GET", `/api/v1/${encodeURIComponent(memory)}/entities/${encodeURIComponent(e.type)}/${encodeURIComponent(e.name)}`);
  const keys = [...new Set(st.attributes.map((a) => a.key))].slice(0, 30);
  const histories = await Promise.all(
    keys.map((k) => api("GET", m(memory, "history"), { query: { entity_type: e.type, name: e.name, key: k } })),
  );
  fill(
    main,
    h("h1", {}, e.name, " ", typeBadge(e.type)),
    h("p", { class: "description" }, e.description || "(no description)"),
    h(
      "p",
      { class: "muted" },
      `degree ${e.degree} · updated ${when(e.updated_at)}`,
      " · ",
      h("a", { href: route("m", memory, "graph", e.name), id: "open-graph" }, "Graph"),
      " · ",
      h("a", { href: withQuery(route("m", memory, "recall"), { entity: e.name, q: e.name }) }, "Recall about it"),
    ),
    e.aliases.length ? h("p", {}, "Also known as: ", e.aliases.join(", ")) : null,
    section(
      "Attributes",
      keys.length
        ? keys.map((k, i) => attributeTimeline(memory, k, histories[i]))
        : note("No attributes."),
    ),
    section(
      `Relationships (${e.relationships.length}${e.relationships_truncated ? ", more not shown" : ""})`,
      table(
        ["Source", "Type", "Target", "Description", "Status"],
        e.relationships.map((r) => [
          h("a", { href: route("m", memory, "entity", r.source) }, r.source),
          r.type,
          h("a", { href: route("m", memory, "entity", r.target) }, r.target),
          r.description,
          r.valid_until ? `ended ${when(r.valid_until)}` : "current",
        ]),
        { id: "relationships" },
      ),
    ),
    section(
      `Observations (${e.observations.length}${e.observations_truncated ? ", more not shown" : ""})`,
      h("ul", { id: "observations" }, e.observations.map((slug) => h("li", {}, h("a", { href: route("m", memory, "obs", slug) }, slug)))),
    ),
    allows(tier, "full") ? entityDelete(memory, e) : null,
  );
}

function endedBy(memory, next) {
  if (!next) return h("span", { class: "muted" }, " · corrected by a later version");
  const where = next.source_turn
    ? route("m", memory, "turn", next.source_turn)
    : next.source_slug
      ? route("m", memory, "obs", next.source_slug)
      : null;
  return h(
    "span",
    { class: "ended-by" },
    " · corrected to ",
    h("b", {}, next.value),
    where ? [" by ", h("a", { href: where }, "that turn")] : null,
  );
}

function attributeTimeline(memory, key, versions) {
  const byId = new Map(versions.map((v) => [v.id, v]));
  return h(
    "div",
    { class: "attribute", dataset: { key } },
    h("h3", {}, key),
    h(
      "ol",
      { class: "timeline" },
      versions.map((v) =>
        h(
          "li",
          { class: v.valid_until ? "version ended" : "version current" },
          h("b", { class: "value" }, v.value),
          h("span", { class: "validity" }, ` from ${when(v.valid_from)}`, v.valid_until ? ` until ${when(v.valid_until)}` : " (current)"),
          v.source_turn ? [" · set by ", h("a", { href: route("m", memory, "turn", v.source_turn) }, "its turn")] : v.source_slug ? [" · set by ", h("a", { href: route("m", memory, "obs", v.source_slug) }, v.source_slug)] : null,
          v.superseded_by ? endedBy(memory, byId.get(v.superseded_by)) : null,
        ),
      ),
    ),
  );
}

// -- state -----------------------------------------------------------------------------------

export async function state(main, memory, _rest, params) {
  const asOf = params.get("as_of") || "";
  const st = await api("GET", m(memory, "state"), { query: { as_of: asOf, limit: 50 } });
  const input = h("input", { name: "as_of", value: asOf, placeholder: "now, or an ISO time like 2024-05-01T12:00:00Z" });
  const form = h("form", { class: "inline" }, h("label", {}, "As of ", input), h("button", { type: "submit" }, "Show"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = withQuery(route("m", memory, "state"), { as_of: input.value.trim() });
  });
  const cut = Object.entries(st.truncated).filter(([, v]) => v).map(([k]) => k);
  fill(
    main,
    h("h1", {}, "State", asOf ? ` as of ${asOf}` : " now"),
    form,
    cut.length ? note(`Only the first 50 of each list are shown; cut: ${cut.join(", ")}.`) : null,
    ["identity", "knowledge", "context"].map((cat) => category(memory, cat, st[cat])),
    section("Instructions", h("ul", {}, st.instructions.map((i) => h("li", {}, i.description)))),
    section("Unknowns", h("ul", {}, st.unknowns.map((u) => h("li", {}, `${u.about}: ${u.reason}`)))),
  );
}

function category(memory, name, cs) {
  return section(
    name[0].toUpperCase() + name.slice(1),
    h("h3", {}, "Entities"),
    h("ul", { class: "flat" }, cs.entities.map((e) => h("li", {}, h("a", { href: route("m", memory, "entity", e.name) }, e.name), " ", typeBadge(e.entity_type)))),
    h("h3", {}, "Attributes"),
    table(["Entity", "Key", "Value", "Since"], cs.attributes.map((a) => [h("a", { href: route("m", memory, "entity", a.entity) }, a.entity), a.key, a.value, when(a.valid_from)])),
    h("h3", {}, "Relations"),
    table(["Subject", "Label", "Object"], cs.relations.map((r) => [r.subject, r.label, r.object])),
    h("h3", {}, "Actions"),
    table(["When", "Summary"], cs.actions.map((a) => [when(a.occurred_at) + (a.time_precision ? ` (${a.time_precision})` : ""), a.summary])),
  );
}

// -- files -----------------------------------------------------------------------------------

export async function files(main, memory, _rest, params) {
  const prefix = params.get("prefix") || "";
  const list = await api("GET", m(memory, "files"), { query: { prefix } });
  const shown = list.slice(0, 200);
  fill(
    main,
    h("h1", {}, "Files"),
    list.length > shown.length ? note(`Showing 200 of ${list.length}; narrow with a prefix.`) : null,
    table(
      ["Path", "Description", "Type", "Size", "Stored"],
      shown.map((f) => [h("a", { href: route("m", memory, "file", ...f.path.split("/")) }, f.path), f.description, f.content_type, `${f.size} B`, when(f.created_at)]),
      { id: "files" },
    ),
  );
}

const TEXTUAL = /^(text\/|application\/(json|xml|x-yaml|yaml|toml|javascript))/;
const MAX_VIEW = 512 * 1024;

export async function file(main, memory, rest) {
  const path = rest.join("/");
  const response = await api("GET", m(memory, "files", ...rest.map(encodeURIComponent)), { raw: true });
  const meta = JSON.parse(response.headers.get("X-File-Meta") || "{}");
  const blob = await response.blob();
  const download = h("button", { type: "button", id: "download" }, "Download");
  download.addEventListener("click", () => {
    const url = URL.createObjectURL(blob);
    const a = h("a", { href: url, download: meta.filename || path.split("/").pop() });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  const textual = TEXTUAL.test(meta.content_type || "") && blob.size <= MAX_VIEW;
  fill(
    main,
    h("h1", {}, path),
    h("p", { class: "muted" }, `${meta.description || ""} · ${meta.content_type} · ${meta.size} B · sha256 ${meta.sha256 || ""}`),
    download,
    textual ? h("pre", { class: "file-text", id: "file-text" }, await blob.text()) : note("Not shown: not a text file, or over 512 KB. Download it instead."),
  );
}
