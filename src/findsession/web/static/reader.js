// The session reader: turns in order, tool calls and long outputs collapsed with their
// size, thinking hidden until asked for, subagents under the call that started them,
// the matched words marked and stepped through, the resume command one click away.

import { get } from "./api.js";
import { el, marked, queryWords, size, when, place, whose } from "./dom.js";
import { sessionHref, sessionTitle } from "./search.js";

//: A reply longer than this is collapsed too.
const LONG_REPLY = 6000;

export async function readerView(main, ref, params, backHref, isCurrent) {
  const data = await get(`/api/session/${encodeURIComponent(ref)}`);
  if (!isCurrent()) return null;
  const query = params.get("q") || "";
  const words = queryWords(query);
  const s = data.session;
  const calls = new Map();
  for (const child of data.subagents) {
    if (child.started_by) calls.set(child.started_by.join(":"), child);
  }
  const loose = data.subagents.filter((child) => !child.started_by);
  const turns = el("ol", { class: "turns" }, data.turns.map((t) => turnView(t, words, calls, query)));
  const navigator_ = new Matches(turns);
  const head = el(
    "header",
    { class: "reader-head" },
    el("a", { class: "back", href: backHref, text: "← back" }),
    el("h1", { text: sessionTitle(s, data.turns[0]?.messages[0]?.text.slice(0, 120)) }),
    el(
      "p",
      { class: "meta" },
      el("span", { class: "source", text: s.source }),
      whose(s) ? el("span", { class: "whose", text: whose(s) }) : null,
      el("span", { class: "project", text: place(s.cwd) }),
      el("span", { text: `${when(s.started)} – ${when(s.ended)}` }),
      el("span", { text: `${data.total_turns} turn${data.total_turns === 1 ? "" : "s"}` }),
      s.model ? el("span", { class: "model", text: s.model }) : null,
      el("span", { class: "sid", text: s.id }),
      goneMark(s, data.resume),
    ),
    data.parent
      ? el(
          "p",
          { class: "family" },
          "↑ a subagent of ",
          el("a", { id: "parent-link", href: sessionHref(data.parent.id, { q: query }) }, sessionTitle(data.parent)),
        )
      : null,
    data.subagents.length
      ? el("p", { class: "family", text: `${data.subagents.length} subagent${data.subagents.length === 1 ? "" : "s"} started here` })
      : null,
    resumeBox(data.resume),
    downloads(s.id),
    el(
      "div",
      { class: "reader-tools" },
      el("label", {}, el("input", { type: "checkbox", id: "show-thinking", onchange: (e) => {
        turns.classList.toggle("show-thinking", e.target.checked);
        navigator_.collect();
      } }), " show thinking"),
      words.length ? navigator_.controls() : null,
    ),
  );
  const tail = loose.length
    ? el("section", { class: "loose" }, el("h2", { text: "Subagents" }), loose.map((c) => subagentView(c, query)))
    : null;
  main.replaceChildren(el("article", { class: "reader" }, head, turns, tail));
  navigator_.collect();
  const target = Number(params.get("turn")) || null;
  navigator_.jumpToTurn(target);
  return navigator_;
}

// The session as one file, as `findsession export` writes it (the index's redacted text).
function downloads(id) {
  const href = (format) => `api/session/${encodeURIComponent(id)}/export?format=${format}`;
  return el(
    "p",
    { class: "downloads" },
    "Download: ",
    el("a", { id: "export-md", href: href("md"), download: "", text: "Markdown" }),
    " · ",
    el("a", { id: "export-html", href: href("html"), download: "", text: "HTML" }),
  );
}

// A session whose transcript is gone (its agent deleted it): whether the archive holds a copy.
function goneMark(s, resume) {
  const restore = resume && resume.restore;
  if (!s.missing && !restore) return null;
  const held = restore ? restore.held : null;
  const text = held === true ? "transcript gone · kept in the archive" : held === false ? "transcript gone · no copy kept" : "transcript gone";
  return el("span", { class: "gone", id: "gone-mark", text });
}

function resumeBox(resume) {
  if (!resume) return null;
  const restore = resume.restore;
  if (restore && !restore.held) {
    return el("p", { class: "resume none", text: `cannot resume: ${restore.reason}` });
  }
  if (!resume.available || !resume.shell) {
    return el("p", { class: "resume none", text: `cannot resume: ${resume.reason || "no command"}` });
  }
  const button = el("button", { type: "button", id: "copy-resume", text: "Copy resume command" });
  button.addEventListener("click", () => copy(resume.shell, button));
  return el(
    "div",
    { class: "resume" },
    el("code", { id: "resume-line", text: resume.shell }),
    button,
    resume.note ? el("p", { class: "note", text: resume.note }) : null,
    restore ? el("p", { class: "note", text: "Its transcript is gone; this writes it back from the archive, then resumes it." }) : null,
  );
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = el("textarea", { class: "offscreen", readonly: true });
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  button.textContent = "Copied";
  setTimeout(() => { button.textContent = "Copy resume command"; }, 1500);
}

function turnView(turn, words, calls, query) {
  const items = [];
  turn.messages.forEach((message, index) => {
    items.push(messageView(message, words));
    const child = calls.get(`${turn.turn}:${index}`);
    if (child) items.push(subagentView(child, query));
  });
  return el(
    "li",
    { class: "turn", id: `turn-${turn.turn}`, dataset: { turn: turn.turn } },
    el("div", { class: "turn-head", text: `turn ${turn.turn}${turn.timestamp ? ` · ${when(turn.timestamp)}` : ""}` }),
    items,
  );
}

function body(message, words) {
  const cut = message.chars > message.text.length;
  return el(
    "div",
    { class: "text" },
    marked(message.text, words),
    cut ? el("p", { class: "cut", text: `… ${size(message.chars - message.text.length)} more not shown here; \`findsession read\` prints it all` }) : null,
  );
}

function messageView(message, words) {
  const kind = message.kind;
  const sized = size(message.chars);
  if (kind === "tool_call" || kind === "tool_output" || kind === "thinking") {
    const first = message.text.split("\n", 1)[0].slice(0, 100);
    const label =
      kind === "tool_call" ? `⚙ ${message.tool || "tool"} · ${sized}` :
      kind === "thinking" ? `thinking · ${sized}` :
      `output${message.is_error ? " (error)" : ""} · ${sized}`;
    return el(
      "details",
      { class: `msg ${kind.replace("_", "-")}` },
      el("summary", {}, el("span", { class: "label", text: label }), el("span", { class: "preview", text: first })),
      body(message, words),
    );
  }
  const who = { prompt: "prompt", reply: "agent", section: message.heading || "section", compact_summary: "summary", harness: "harness" }[kind] || kind;
  if (kind === "reply" && message.chars > LONG_REPLY) {
    return el(
      "details",
      { class: "msg reply long" },
      el("summary", {}, el("span", { class: "label", text: `agent · ${sized}` }), el("span", { class: "preview", text: message.text.slice(0, 100) })),
      body(message, words),
    );
  }
  return el("div", { class: `msg ${kind.replace("_", "-")}` }, el("div", { class: "who", text: who }), body(message, words));
}

function subagentView(child, query) {
  const nested = el("div", { class: "nested" });
  const details = el(
    "details",
    { class: "sub-turns" },
    el("summary", { text: `its ${child.turns} turn${child.turns === 1 ? "" : "s"}` }),
    nested,
  );
  details.addEventListener("toggle", async () => {
    if (!details.open || nested.childElementCount) return;
    const data = await get(`/api/session/${encodeURIComponent(child.id)}`);
    nested.replaceChildren(...data.turns.map((t) => turnView(t, queryWords(query), new Map(), query)));
  });
  return el(
    "div",
    { class: "subagent", dataset: { session: child.id } },
    el("a", { class: "subagent-link", href: sessionHref(child.id, { q: query }) }, `↳ subagent ${sessionTitle(child, child.first_prompt)}`),
    details,
  );
}

// The marked words of the session, stepped through in order (n / p, or the buttons).
class Matches {
  constructor(root) {
    this.root = root;
    this.marks = [];
    this.at = -1;
    this.count = el("span", { class: "match-count", id: "match-count", text: "" });
  }

  controls() {
    return el(
      "span",
      { class: "matchnav" },
      el("button", { type: "button", id: "prev-match", onclick: () => this.step(-1), text: "↑ previous" }),
      this.count,
      el("button", { type: "button", id: "next-match", onclick: () => this.step(1), text: "next ↓" }),
    );
  }

  collect() {
    const showThinking = this.root.classList.contains("show-thinking");
    const current = this.marks[this.at];
    this.marks = [...this.root.querySelectorAll("mark")].filter(
      (m) => showThinking || !m.closest(".thinking"),
    );
    this.at = current ? this.marks.indexOf(current) : -1;
    this.show();
  }

  show() {
    const n = this.marks.length;
    this.count.textContent = n ? `${this.at >= 0 ? this.at + 1 : "–"} / ${n}` : "no matches";
  }

  jumpToTurn(turn) {
    const target = turn ? this.root.querySelector(`#turn-${turn}`) : null;
    if (target) target.classList.add("target");
    const inTurn = this.marks.filter((m) => target && target.contains(m));
    const open = inTurn.find((m) => !m.closest("details"));
    const first = open || inTurn[0];
    if (first) this.go(this.marks.indexOf(first));
    else if (target) target.scrollIntoView({ block: "start" });
  }

  step(delta) {
    if (!this.marks.length) return;
    const n = this.marks.length;
    this.go(this.at < 0 ? (delta > 0 ? 0 : n - 1) : (this.at + delta + n) % n);
  }

  go(index) {
    const old = this.marks[this.at];
    if (old) old.classList.remove("current");
    this.at = index;
    const mark = this.marks[index];
    for (let d = mark.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
    mark.classList.add("current");
    mark.scrollIntoView({ block: "center" });
    const turn = mark.closest(".turn");
    if (turn) {
      for (const t of this.root.querySelectorAll(".turn.current-turn")) t.classList.remove("current-turn");
      turn.classList.add("current-turn");
    }
    this.show();
  }
}
