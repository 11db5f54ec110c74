// Building the page from data: every value the memory holds goes in as text, never as markup.

/** An element: h("a", {href: "#/"}, "text", child, [more, children]). Strings become text nodes. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (name === "dataset") {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(name, "");
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace an element's content. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A link inside the inspector: route("m", name, "entity", entityName) -> "#/m/<name>/entity/<entity>". */
export function route(...parts) {
  const path = parts.map((p) => encodeURIComponent(String(p))).join("/");
  return "#/" + path;
}

export function withQuery(href, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${href}?${s}` : href;
}

export function when(iso) {
  if (!iso) return "";
  return String(iso).replace("T", " ").replace(/\.\d+/, "").replace("+00:00", "Z");
}

export function table(headers, rows, attrs = {}) {
  return h(
    "table",
    attrs,
    h("thead", {}, h("tr", {}, headers.map((t) => h("th", {}, t)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((c) => h("td", {}, c))))),
  );
}

export function section(title, ...children) {
  return h("section", {}, h("h2", {}, title), ...children);
}

export function note(text, cls = "note") {
  return h("p", { class: cls }, text);
}

/** A type's colour, the same for the same type everywhere. */
export function colourOf(type) {
  const palette = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
    "#b07aa1", "#edc948", "#ff9da7", "#9c755f", "#bab0ac",
  ];
  let n = 0;
  for (const ch of String(type)) n = (n * 31 + ch.codePointAt(0)) >>> 0;
  return palette[n % palette.length];
}

export function typeBadge(type) {
  const el = h("span", { class: "badge" }, type);
  el.style.backgroundColor = colourOf(type); // CSSOM, not a style attribute: allowed by the CSP
  return el;
}
