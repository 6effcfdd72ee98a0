// Building the page from data: DOM nodes with textContent only, never markup from a
// transcript. Highlighting splits text into text nodes and <mark> elements.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Text with the given [start, end) spans (code-point offsets, as Python counts) marked.
export function spans(text, ranges) {
  const chars = Array.from(text);
  const frag = document.createDocumentFragment();
  let at = 0;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (start < at || end <= start) continue;
    frag.append(document.createTextNode(chars.slice(at, start).join("")));
    frag.append(el("mark", { text: chars.slice(start, end).join("") }));
    at = end;
  }
  frag.append(document.createTextNode(chars.slice(at).join("")));
  return frag;
}

// The words of a query worth marking in a session's text.
export function queryWords(query) {
  const words = (query || "").toLowerCase().match(/[\p{L}\p{N}_][\p{L}\p{N}_.\-/]*/gu) || [];
  const stop = new Set(["the", "and", "for", "that", "this", "with", "was", "are", "you", "not"]);
  return [...new Set(words.filter((w) => w.length >= 2 && !stop.has(w)))];
}

// Text with every occurrence of `words` (case-insensitive, as word starts) marked.
export function marked(text, words) {
  if (!words.length) return document.createTextNode(text);
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${escaped.join("|")})`, "giu");
  const frag = document.createDocumentFragment();
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    frag.append(document.createTextNode(text.slice(at, m.index)));
    frag.append(el("mark", { text: m[0] }));
    at = m.index + m[0].length;
  }
  frag.append(document.createTextNode(text.slice(at)));
  return frag;
}

export function size(chars) {
  if (chars < 1000) return `${chars} chars`;
  if (chars < 1e6) return `${(chars / 1000).toFixed(1)}k chars`;
  return `${(chars / 1e6).toFixed(1)}M chars`;
}

export function day(ts) {
  return ts ? ts.slice(0, 10) : "undated";
}

export function when(ts) {
  return ts ? ts.slice(0, 16).replace("T", " ") : "";
}

// A project's directory with the home folder shortened, for reading at a glance.
export function place(cwd) {
  return (cwd || "").replace(/^\/(home|Users)\/[^/]+/, "~");
}

// Whose session and which machine it came from, on a team's shared server ("" in a
// local index): a colleague's work is told apart from one's own at a glance.
export function whose(s) {
  if (s.yours === false) return `${s.owner || "someone"}'s, on ${s.machine || "their index"}`;
  return s.machine ? `on ${s.machine}` : "";
}
