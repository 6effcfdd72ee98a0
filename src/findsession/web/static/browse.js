// Browsing without a query: sessions by day and project (the timeline, with the titles
// the index holds), and the sources found, as `findsession sources` lists them.

import { get } from "./api.js";
import { el, day, when, place } from "./dom.js";
import { sessionHref, sessionTitle } from "./search.js";

// Sessions asked for at a time; "Older sessions" asks for the next ones.
const PAGE = 500;

export async function timelineView(main, filters, isCurrent) {
  const shown = [];
  const seen = new Set();
  let before = filters.before;
  let more = false;

  // The next sessions older than those shown. The server takes sessions active before a
  // time, so a page ends where the last one shown was active, plus a second: sessions
  // sharing that second come again and are dropped here, none is skipped.
  async function load() {
    const data = await get("/api/sessions", {
      project: filters.project,
      after: filters.after,
      before,
      limit: PAGE,
    });
    const fresh = data.sessions.filter((s) => !seen.has(s.id));
    for (const s of fresh) {
      seen.add(s.id);
      shown.push(s);
    }
    more = data.sessions.length === PAGE && fresh.length > 0;
    const last = data.sessions.at(-1);
    if (last && (last.ended || last.started)) {
      const next = Date.parse(last.ended || last.started) + 1000;
      const bound = Date.parse(filters.before || ""); // NaN for none, or for "7d"
      before = new Date(Number.isNaN(bound) ? next : Math.min(next, bound)).toISOString();
    } else {
      more = false; // undated sessions come last: nothing older to ask for
    }
    return data;
  }

  function render() {
    const older = more
      ? el("button", { type: "button", class: "older", text: `Older sessions (${PAGE} more)` })
      : null;
    if (older) {
      older.addEventListener("click", async () => {
        older.disabled = true;
        older.textContent = "Loading…";
        main.setAttribute("aria-busy", "true");
        try {
          await load();
          if (isCurrent()) render();
        } finally {
          if (isCurrent()) main.removeAttribute("aria-busy");
        }
      });
    }
    const heading = el("p", {
      class: "ran",
      text: `${shown.length} most recent session${shown.length === 1 ? "" : "s"}, newest first`,
    });
    const body = shown.length
      ? el("div", { class: "timeline", id: "results" }, daySections(shown))
      : el("p", { class: "empty", text: "No sessions in the index yet: run `findsession index`." });
    main.replaceChildren(...[heading, body, older].filter(Boolean));
  }

  const data = await load();
  if (isCurrent()) render();
  return data;
}

function daySections(sessions) {
  const days = new Map();
  for (const s of sessions) {
    const key = day(s.ended || s.started);
    if (!days.has(key)) days.set(key, new Map());
    const projects = days.get(key);
    const project = place(s.cwd) || "no project";
    if (!projects.has(project)) projects.set(project, []);
    projects.get(project).push(s);
  }
  return [...days].map(([key, projects]) =>
    el(
      "section",
      { class: "day" },
      el("h2", { text: key }),
      [...projects].map(([project, group]) =>
        el(
          "div",
          { class: "project-group" },
          el("h3", { class: "project", text: project }),
          el("ul", { class: "sessions" }, group.map(sessionRow)),
        ),
      ),
    ),
  );
}

function sessionRow(s) {
  return el(
    "li",
    { class: "result row", dataset: { session: s.id } },
    el("span", { class: "time", text: when(s.ended || s.started).slice(11) }),
    el("a", { class: "nav-item open", href: sessionHref(s.id) }, sessionTitle(s, s.first_prompt)),
    s.title_given
      ? el("span", {
          class: "title-given",
          text: "titled",
          title: s.title_given === "file"
            ? "title written back into the transcript by `findsession titles --write`"
            : "title kept in the index by `findsession titles --write`",
        })
      : null,
    el("span", { class: "source", text: s.source }),
    el("span", { class: "turn-count", text: `${s.turns} turn${s.turns === 1 ? "" : "s"}` }),
  );
}

export async function sourcesView(main, isCurrent) {
  const data = await get("/api/sources");
  if (!isCurrent()) return;
  const rows = data.sources.map((s) =>
    el(
      "tr",
      { class: s.enabled ? "on" : "off" },
      el("th", { scope: "row", text: s.kind }),
      el("td", { text: s.enabled ? "on" : "off" }),
      el(
        "td",
        { class: "roots" },
        s.roots.map((r) => el("div", { class: r.exists ? "exists" : "absent", text: `${place(r.path)}${r.exists ? "" : " (not found)"}` })),
      ),
      el("td", { class: "num", text: s.files }),
      el("td", { class: "num", text: s.sessions }),
      el("td", { class: "num", text: s.subagents }),
      el("td", { class: "num", text: s.problems }),
    ),
  );
  main.replaceChildren(
    el("h2", { text: "Sources" }),
    el(
      "div",
      { class: "table-wrap" },
      el(
        "table",
        { class: "sources" },
        el("thead", {}, el("tr", {}, ["source", "on", "where it looks", "files", "sessions", "subagents", "skipped lines"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, rows),
      ),
    ),
  );
}

// Sources and projects for the filters, from what the index holds.
export async function fillFilters(sourceSelect, projectList) {
  const [sources, sessions] = await Promise.all([get("/api/sources"), get("/api/sessions", { limit: 2000 })]);
  for (const s of sources.sources) {
    if (s.sessions > 0 || s.files > 0) sourceSelect.append(el("option", { value: s.kind, text: s.kind }));
  }
  const projects = [...new Set(sessions.sessions.map((s) => s.cwd).filter(Boolean))].sort();
  projectList.replaceChildren(...projects.map((p) => el("option", { value: p })));
}
