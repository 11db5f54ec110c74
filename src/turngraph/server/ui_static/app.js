// The inspector: a hash router over the pages; each page reads the JSON API and draws itself.

import { api, ApiError, forget, key, signIn, signOut } from "./api.js";
import { fill, h, route } from "./dom.js";
import * as browse from "./browse.js";
import * as curate from "./curate.js";
import * as graph from "./graph.js";
import * as turns from "./turns.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const who = document.getElementById("who");
const signout = document.getElementById("signout");

const PAGES = {
  "": browse.overview,
  recall: browse.recall,
  entities: browse.entities,
  entity: browse.entity,
  graph: graph.page,
  sessions: turns.sessions,
  session: turns.session,
  turn: turns.turn,
  obs: curate.observation,
  state: browse.state,
  proposals: curate.proposals,
  forget: curate.forgetPage,
  files: browse.files,
  file: browse.file,
};

const TABS = [
  ["", "Overview"],
  ["recall", "Recall"],
  ["entities", "Entities"],
  ["sessions", "Sessions"],
  ["state", "State"],
  ["proposals", "Proposals"],
  ["forget", "Forget"],
  ["files", "Files"],
];

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, query = ""] = raw.split("?", 2);
  const parts = path ? path.split("/").map((p) => decodeURIComponent(p)) : [];
  return { parts, params: new URLSearchParams(query) };
}

function drawNav(memory, current) {
  if (!memory) {
    fill(nav);
    return;
  }
  fill(
    nav,
    h("span", { class: "memory-name" }, memory),
    TABS.map(([page, label]) =>
      h("a", { href: page ? route("m", memory, page) : route("m", memory), class: page === current ? "active" : null }, label),
    ),
  );
}

function signInPage(message) {
  drawNav(null);
  who.textContent = "";
  signout.hidden = true;
  const input = h("input", { type: "password", name: "key", id: "key", autocomplete: "off", placeholder: "tg_…", required: true });
  const error = h("p", { class: "error", id: "signin-error" }, message || "");
  error.hidden = !message;
  const form = h(
    "form",
    { id: "signin", class: "card narrow" },
    h("h1", {}, "Sign in"),
    h("p", { class: "muted" }, "Your API key is kept in this browser tab only, and sent to this server with each request."),
    h("label", { for: "key" }, "API key"),
    input,
    h("button", { type: "submit" }, "Sign in"),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    signIn(input.value.trim());
    try {
      await api("GET", "/v1/whoami");
    } catch (err) {
      signOut();
      fill(error, err instanceof ApiError && err.status === 401 ? "That key is not valid here." : err.message);
      error.hidden = false;
      return;
    }
    if (location.hash && location.hash !== "#/") render();
    else location.hash = "#/";
  });
  fill(main, form);
  input.focus();
}

export async function render() {
  if (!key()) {
    signInPage();
    return;
  }
  signout.hidden = false;
  const started = performance.now();
  const { parts, params } = parseHash();
  main.setAttribute("aria-busy", "true");
  try {
    if (!who.textContent) {
      // Who is signed in, shown when it comes; the page does not wait for it.
      who.textContent = " ";
      api("GET", "/v1/whoami").then(
        (me) => (who.textContent = me.principal.id),
        () => (who.textContent = ""),
      );
    }
    if (parts[0] !== "m" || parts.length < 2) {
      drawNav(null);
      await browse.memories(main);
    } else {
      const [, memory, page = "", ...rest] = parts;
      const draw = PAGES[page];
      drawNav(memory, page === "entity" || page === "graph" ? "entities" : page === "session" || page === "turn" ? "sessions" : page === "obs" ? "" : page === "file" ? "files" : page);
      if (!draw) {
        fill(main, h("p", { class: "error" }, `No page named ${page}.`));
      } else {
        await draw(main, memory, rest, params);
      }
    }
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      signOut();
      signInPage("The key was refused; sign in again.");
      return;
    }
    fill(main, h("div", { class: "error", role: "alert" }, err.message || String(err)));
  } finally {
    // How long this page took to draw, and since the tab navigated (read by the benchmark).
    main.dataset.renderMs = (performance.now() - started).toFixed(1);
    main.dataset.sinceNavigationMs = performance.now().toFixed(1);
    main.setAttribute("aria-busy", "false");
    main.dataset.page = location.hash || "#/";
  }
}

signout.addEventListener("click", () => {
  signOut();
  forget();
  who.textContent = "";
  location.hash = "#/";
  signInPage();
});

window.addEventListener("hashchange", () => {
  render();
});
render();
