// The page: routes in the address's #fragment, search as you type, keyboard first.
//   #/?q=…&source=…    search (the timeline when there is no query)
//   #/session/ID?turn=N&q=…   the reader, at turn N
//   #/timeline, #/sources     browsing without a query

import { searchView } from "./search.js";
import { readerView } from "./reader.js";
import { timelineView, sourcesView, fillFilters } from "./browse.js";
import { el } from "./dom.js";

const main = document.getElementById("main");
const q = document.getElementById("q");
const FILTERS = { project: "f-project", source: "f-source", after: "f-after", before: "f-before", speaker: "f-speaker", kind: "f-kind" };
const inputs = Object.fromEntries(Object.entries(FILTERS).map(([k, id]) => [k, document.getElementById(id)]));

let generation = 0;
let reader = null;
let listHash = "#/";
let typing = null;

function route() {
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  return { path: path || "/", params: new URLSearchParams(query || "") };
}

function filters() {
  return Object.fromEntries(Object.entries(inputs).map(([k, input]) => [k, input.value.trim()]));
}

function searchHash() {
  const params = new URLSearchParams();
  if (q.value.trim()) params.set("q", q.value.trim());
  for (const [k, v] of Object.entries(filters())) if (v) params.set(k, v);
  const tail = params.toString();
  return `#/${tail ? `?${tail}` : ""}`;
}

async function render() {
  const mine = ++generation;
  const isCurrent = () => mine === generation;
  const { path, params } = route();
  reader = null;
  // Busy until this view is drawn: a reader of the page (or a test) knows the list shown
  // is the one the address asks for, not the one it replaces.
  main.setAttribute("aria-busy", "true");
  document.body.dataset.view = path.startsWith("/session/") ? "reader" : path.slice(1) || "search";
  for (const link of document.querySelectorAll("nav.views a")) {
    link.classList.toggle("active", link.id === `nav-${document.body.dataset.view}`);
  }
  try {
    if (path.startsWith("/session/")) {
      const id = decodeURIComponent(path.slice("/session/".length));
      reader = await readerView(main, id, params, listHash, isCurrent);
      return;
    }
    if (path === "/sources") {
      await sourcesView(main, isCurrent);
      return;
    }
    if (path === "/timeline") {
      listHash = location.hash;
      await timelineView(main, filters(), isCurrent);
      return;
    }
    // Search: the address says what to search; the inputs follow it.
    if (document.activeElement !== q) q.value = params.get("q") || "";
    for (const [k, input] of Object.entries(inputs)) input.value = params.get(k) || "";
    listHash = location.hash || "#/";
    if (q.value.trim()) await searchView(main, q.value.trim(), filters(), isCurrent);
    else await timelineView(main, filters(), isCurrent);
  } catch (error) {
    if (isCurrent()) main.replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
  } finally {
    if (isCurrent()) main.removeAttribute("aria-busy");
  }
}

// Typing searches after a short pause; the address follows, so Back and reload work.
function changed() {
  clearTimeout(typing);
  typing = setTimeout(() => {
    const onList = !route().path.startsWith("/session/") && route().path !== "/sources";
    const next = searchHash();
    if (route().path === "/timeline" && !q.value.trim()) {
      render();
      return;
    }
    if (onList) history.replaceState(null, "", next);
    else history.pushState(null, "", next);
    render();
  }, 120);
}

q.addEventListener("input", changed);
for (const input of Object.values(inputs)) input.addEventListener("change", changed);
document.getElementById("searchform").addEventListener("submit", (e) => {
  e.preventDefault();
  const first = main.querySelector(".nav-item");
  if (first) first.click();
});

function items() {
  return [...main.querySelectorAll(".nav-item")];
}

document.addEventListener("keydown", (e) => {
  const t = e.target;
  const editing = t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;
  if (e.key === "/" && !editing && !e.ctrlKey && !e.metaKey) {
    e.preventDefault();
    q.focus();
    q.select();
    return;
  }
  if (e.key === "Escape") {
    if (document.body.dataset.view === "reader") {
      e.preventDefault();
      location.hash = listHash;
    } else if (t === q) {
      q.blur();
    }
    return;
  }
  if ((e.key === "ArrowDown" || e.key === "ArrowUp") && (t === q || t.classList?.contains("nav-item"))) {
    const list = items();
    if (!list.length) return;
    e.preventDefault();
    const at = list.indexOf(t);
    const next = e.key === "ArrowDown" ? Math.min(at + 1, list.length - 1) : at - 1;
    if (next < 0) q.focus();
    else {
      list[next].focus();
      list[next].scrollIntoView({ block: "nearest" });
    }
    return;
  }
  if (reader && !editing && (e.key === "n" || e.key === "p")) {
    e.preventDefault();
    reader.step(e.key === "n" ? 1 : -1);
  }
});

window.addEventListener("hashchange", render);
fillFilters(inputs.source, document.getElementById("projects")).catch(() => {}).finally(() => {
  const { params } = route();
  if (params.get("source")) inputs.source.value = params.get("source");
});
render();
