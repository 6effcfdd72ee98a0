// Search results: one card per session, the matched words marked, why it ranked, and
// how sure the search is.

import { get } from "./api.js";
import { el, spans, day, place, whose } from "./dom.js";

export function sessionHref(id, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) query.set(key, value);
  const tail = query.toString();
  return `#/session/${encodeURIComponent(id)}${tail ? `?${tail}` : ""}`;
}

export function sessionTitle(session, fallback) {
  const title = session.title || fallback || session.id;
  return title.length > 140 ? `${title.slice(0, 140)}…` : title;
}

export async function searchView(main, query, filters, isCurrent) {
  const data = await get("/api/search", { q: query, ...filters });
  if (!isCurrent()) return;
  const results = data.results.map((hit) => resultCard(hit, query));
  const count = `${data.results.length} session${data.results.length === 1 ? "" : "s"}`;
  const header = el(
    "div",
    { class: "summary" },
    confidenceLine(data.confidence),
    idChoices(data.id_match),
    el("p", { class: "ran", text: `${data.strategy} search · ${count} · ${data.elapsed_ms} ms` }),
    ...data.notes.map((note) => el("p", { class: "note", text: note })),
  );
  const empty = data.results.length
    ? null
    : el("p", { class: "empty", text: data.index_empty ? "The index is empty: run `findsession index`." : "Nothing matched." });
  main.replaceChildren(header, el("ol", { class: "results", id: "results" }, results), empty);
}

// The sessions whose ids all begin with the query: listed, none taken for the one meant.
function idChoices(match) {
  if (!match || match.kind !== "ambiguous") return null;
  const items = match.sessions.map((s) =>
    el("li", {}, el("a", { class: "nav-item open", href: sessionHref(s.id) }, `${s.id} · ${sessionTitle(s)}`)),
  );
  return el(
    "div",
    { class: "id-choices" },
    el("p", { text: `${items.length} sessions' ids begin with this; give more of the id, or open one:` }),
    el("ul", {}, items),
  );
}

function confidenceLine(confidence) {
  if (!confidence) return null;
  return el("p", { class: `confidence level-${confidence.level.replace(/\s+/g, "-")}`, text: confidence.says });
}

function resultCard(hit, query) {
  const s = hit.session;
  const m = hit.match;
  const href = sessionHref(s.id, { turn: m.turn, q: query });
  const title = sessionTitle(s, m.snippet);
  return el(
    "li",
    { class: "result", dataset: { session: s.id } },
    el("a", { class: "nav-item open", href }, s.subagent ? `↳ ${title}` : title),
    el(
      "div",
      { class: "meta" },
      hit.explain.pinned === "id" ? el("span", { class: "id-match", text: "id match" }) : null,
      el("span", { class: "date", text: day(m.timestamp || s.ended) }),
      el("span", { class: "source", text: s.source }),
      whose(s) ? el("span", { class: "whose", text: whose(s) }) : null,
      el("span", { class: "project", text: place(s.cwd) }),
      m.turn ? el("span", { class: "turn-no", text: `turn ${m.turn}` }) : null,
      s.subagent && s.agent_type ? el("span", { class: "agent", text: `subagent ${s.agent_type}` }) : null,
    ),
    el("p", { class: "snippet" }, spans(m.snippet || "", m.highlights || [])),
    m.tools && m.tools.length ? el("p", { class: "tools", text: `tools: ${m.tools.join(", ")}` }) : null,
    el("p", { class: "why", text: `why: ${hit.why}` }),
  );
}
