// An entity's neighborhood drawn with Cytoscape.js (vendored, loaded on first use): pan, zoom,
// click a node to select it, open it or expand its own neighborhood. Bounded: each expansion
// reads at most LIMIT relationships, and the drawing stops growing at MAX_NODES.

import { api, m } from "./api.js";
import { colourOf, fill, h, note, route } from "./dom.js";

const LIMIT = 100;
const MAX_NODES = 400;
let loading = null;

function loadCytoscape() {
  if (window.cytoscape) return Promise.resolve(window.cytoscape);
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = "vendor/cytoscape.min.js";
      script.onload = () => resolve(window.cytoscape);
      script.onerror = () => reject(new Error("the graph library did not load"));
      document.head.appendChild(script);
    });
  }
  return loading;
}

export async function page(main, memory, rest) {
  const name = rest.join("/");
  const [cytoscape, first] = await Promise.all([loadCytoscape(), api("GET", m(memory, "graph"), { query: { entity: name, limit: LIMIT } })]);
  const box = h("div", { id: "graph", class: "graph" });
  const status = h("p", { id: "graph-status", class: "muted" });
  const notes = h("ul", { id: "graph-notes", class: "notes" });
  const panel = h("div", { id: "graph-panel", class: "panel" }, note("Click a node.", "muted"));
  const legend = h("div", { id: "legend", class: "legend" });
  fill(
    main,
    h("h1", {}, "Graph around ", h("a", { href: route("m", memory, "entity", first.center) }, first.center)),
    status,
    notes,
    h("div", { class: "graph-layout" }, box, h("div", {}, panel, legend)),
  );
  const cy = cytoscape({
    container: box,
    minZoom: 0.1,
    maxZoom: 4,
    style: [
      {
        selector: "node",
        style: {
          "background-color": "data(colour)",
          label: "data(label)",
          "font-size": 10,
          width: "mapData(degree, 0, 30, 14, 40)",
          height: "mapData(degree, 0, 30, 14, 40)",
          "text-valign": "bottom",
          "text-margin-y": 3,
          color: "#222",
        },
      },
      { selector: "node.center", style: { "border-width": 3, "border-color": "#222" } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#d62728" } },
      {
        selector: "edge",
        style: {
          width: 1.2,
          "line-color": "#999",
          "target-arrow-color": "#999",
          "target-arrow-shape": "triangle",
          "curve-style": "bezier",
          label: "data(label)",
          "font-size": 8,
          color: "#555",
          "text-rotation": "autorotate",
          "text-background-color": "#fff",
          "text-background-opacity": 0.8,
        },
      },
      { selector: "edge.ended", style: { "line-style": "dashed", opacity: 0.5 } },
    ],
  });
  const expanded = new Set();
  const types = new Set();
  const depths = new Map(); // steps from the entity the page opened on: its rings

  const add = (hood) => {
    const fresh = [];
    for (const n of hood.nodes) {
      if (cy.getElementById(`n:${n.name}`).nonempty()) continue;
      if (cy.nodes().length + fresh.length >= MAX_NODES) {
        notes.appendChild(h("li", {}, `Stopped at ${MAX_NODES} nodes; open an entity to draw around it instead.`));
        break;
      }
      types.add(n.type);
      const depth = n.name === hood.center ? (depths.get(n.name) ?? 0) : (depths.get(hood.center) ?? 0) + 1;
      depths.set(n.name, depth);
      fresh.push({ group: "nodes", data: { id: `n:${n.name}`, name: n.name, label: n.name, type: n.type, degree: n.degree, description: n.description, colour: colourOf(n.type), depth } });
    }
    cy.add(fresh);
    const edges = [];
    for (const e of hood.edges) {
      const id = `e:${e.source}|${e.type}|${e.target}`;
      if (cy.getElementById(id).nonempty()) continue;
      if (cy.getElementById(`n:${e.source}`).empty() || cy.getElementById(`n:${e.target}`).empty()) continue;
      edges.push({ group: "edges", data: { id, source: `n:${e.source}`, target: `n:${e.target}`, label: e.type }, classes: e.current ? "" : "ended" });
    }
    cy.add(edges);
    expanded.add(hood.center);
    if (hood.note) notes.appendChild(h("li", {}, `${hood.center}: ${hood.note}`));
    status.textContent = `${cy.nodes().length} nodes · ${cy.edges().length} relationships · expanded: ${expanded.size}`;
    status.dataset.nodes = String(cy.nodes().length);
    fill(legend, [...types].sort().map((t) => {
      const dot = h("span", { class: "dot" });
      dot.style.backgroundColor = colourOf(t);
      return h("div", {}, dot, " ", t);
    }));
    // Rings around the first entity, one per expansion step: linear in the nodes, so a few
    // hundred draw at once (a force-directed layout takes seconds at that size).
    const deepest = Math.max(...cy.nodes().map((node) => node.data("depth")));
    cy.layout({
      name: "concentric",
      animate: false,
      concentric: (node) => deepest - node.data("depth"),
      levelWidth: () => 1,
      minNodeSpacing: 12,
      nodeDimensionsIncludeLabels: true,
    }).run();
  };

  const expand = async (name) => {
    if (expanded.has(name)) return;
    try {
      add(await api("GET", m(memory, "graph"), { query: { entity: name, limit: LIMIT } }));
    } catch (err) {
      notes.appendChild(h("li", { class: "error" }, err.message));
    }
  };

  const show = (node) => {
    const d = node.data();
    const button = h("button", { type: "button", id: "expand" }, expanded.has(d.name) ? "Expanded" : "Expand");
    button.disabled = expanded.has(d.name);
    button.addEventListener("click", async () => {
      button.disabled = true;
      await expand(d.name);
      button.textContent = "Expanded";
    });
    fill(
      panel,
      h("h3", {}, d.name),
      h("p", {}, d.type, ` · degree ${d.degree}`),
      h("p", { class: "description" }, d.description),
      h("p", {}, h("a", { href: route("m", memory, "entity", d.name), id: "open-node" }, "Open"), " "),
      button,
    );
  };

  cy.on("tap", "node", (event) => show(event.target));
  cy.on("dbltap", "node", (event) => expand(event.target.data("name")));
  add(first);
  cy.getElementById(`n:${first.center}`).addClass("center");
  // For tests and keyboard users: every node as a button too.
  main.appendChild(
    h("details", { id: "node-list" }, h("summary", {}, "Nodes as a list"), h("ul", { class: "flat" }, first.nodes.map((n) => {
      const b = h("button", { type: "button", class: "link", dataset: { name: n.name } }, n.name);
      b.addEventListener("click", () => {
        const node = cy.getElementById(`n:${n.name}`);
        cy.elements().unselect();
        node.select();
        show(node);
      });
      return h("li", {}, b);
    }))),
  );
}
