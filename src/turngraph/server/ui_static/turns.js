// Sessions and turns: a session's turns oldest first, paged, each with what it taught.

import { api, m } from "./api.js";
import { fill, h, note, route, section, table, typeBadge, when, withQuery } from "./dom.js";
import { pager } from "./browse.js";

const SESSIONS = 50;
const TURNS = 20;

export async function sessions(main, memory, _rest, params) {
  const offset = Number(params.get("offset") || 0);
  const page = await api("GET", m(memory, "sessions"), { query: { limit: SESSIONS, offset } });
  fill(
    main,
    h("h1", {}, "Sessions"),
    table(
      ["Session", "Turns", "Started", "Metadata"],
      page.sessions.map((s) => [h("a", { href: route("m", memory, "session", s.id) }, s.id), String(s.turn_count), when(s.created_at), s.metadata === null ? "" : JSON.stringify(s.metadata)]),
      { id: "sessions" },
    ),
    pager(route("m", memory, "sessions"), offset, SESSIONS, page.has_more),
  );
}

export async function session(main, memory, rest, params) {
  const id = rest.join("/");
  const cursor = params.get("cursor") || "";
  const [s, page] = await Promise.all([
    api("GET", m(memory, "sessions", encodeURIComponent(id))),
    api("GET", m(memory, "sessions", encodeURIComponent(id), "turn-details"), { query: { limit: TURNS, cursor } }),
  ]);
  const details = page.turns;
  fill(
    main,
    h("h1", {}, "Session ", h("code", {}, s.id)),
    h("p", { class: "muted" }, `${s.turn_count} turns · started ${when(s.created_at)}`, cursor ? [" · ", h("a", { href: route("m", memory, "session", id) }, "first page")] : null),
    h("ol", { class: "turns", id: "turns" }, details.map((d) => h("li", { class: "turn" }, turnBlock(memory, d, true)))),
    page.has_more ? h("p", { class: "pager" }, h("a", { class: "next", href: withQuery(route("m", memory, "session", id), { cursor: page.next_cursor }) }, "Next turns →")) : null,
  );
}

export async function turn(main, memory, rest) {
  const d = await api("GET", m(memory, "turns", encodeURIComponent(rest.join("/"))));
  fill(
    main,
    h("h1", {}, `Turn ${d.turn.seq}`),
    h(
      "p",
      { class: "muted" },
      "in session ",
      h("a", { href: route("m", memory, "session", d.turn.session_id) }, d.turn.session_id),
      " · observation ",
      h("a", { href: route("m", memory, "obs", d.turn.slug) }, d.turn.slug),
    ),
    turnBlock(memory, d, false),
  );
}

function turnBlock(memory, d, linked) {
  const t = d.turn;
  const head = h(
    "div",
    { class: "turn-head" },
    h("b", {}, t.speaker || t.role),
    ` · ${t.role} · #${t.seq} · ${when(t.observed_at)} · extracted: ${t.extracted}`,
    linked ? [" · ", h("a", { href: route("m", memory, "turn", t.id) }, "open")] : null,
  );
  return [head, h("div", { class: "content", id: linked ? null : "turn-content" }, t.content), extraction(memory, d)];
}

function extraction(memory, d) {
  const parts = [];
  const ent = (name) => h("a", { href: route("m", memory, "entity", name) }, name);
  if (d.entities.length) parts.push(h("div", {}, h("i", {}, "Entities: "), d.entities.map((e, i) => [i ? ", " : "", ent(e.name), " ", typeBadge(e.type)])));
  if (d.attributes.length)
    parts.push(h("div", {}, h("i", {}, "Attributes: "), d.attributes.map((a, i) => [i ? "; " : "", ent(a.entity), ` ${a.key} = ${a.value}`, a.valid_until ? " (since superseded)" : ""])));
  if (d.relationships.length) parts.push(h("div", {}, h("i", {}, "Relations: "), d.relationships.map((r, i) => [i ? "; " : "", ent(r.source), ` ${r.type} `, ent(r.target)])));
  if (d.actions.length)
    parts.push(h("div", {}, h("i", {}, "Actions: "), d.actions.map((a, i) => [i ? "; " : "", a.summary, a.occurred_at ? ` (${when(a.occurred_at)}${a.time_precision ? `, ${a.time_precision}` : ""})` : ""])));
  if (d.instructions.length) parts.push(h("div", {}, h("i", {}, "Instructions: "), d.instructions.map((x) => x.description).join("; ")));
  if (d.uncertainties.length) parts.push(h("div", {}, h("i", {}, "Uncertain: "), d.uncertainties.map((u) => `${u.about} (${u.reason})`).join("; ")));
  if (d.corrections.length)
    parts.push(h("div", { class: "corrections" }, h("i", {}, "Corrections: "), d.corrections.map((c, i) => [i ? "; " : "", `${c.key}: ${c.old_value} → ${c.new_value}`])));
  return h("div", { class: "extraction" }, parts.length ? parts : note("Nothing extracted.", "muted"));
}
