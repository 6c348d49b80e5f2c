// Syntax highlighting and bracket matching for CEL textareas, drawn in a <pre> behind a
// transparent textarea: the textarea stays the real control (forms, labels, tests, a11y).
(() => {
  "use strict";
  const ROOTS = new Set(["object", "oldObject", "request", "params", "namespaceObject", "variables", "authorizer", "self"]);
  const KEYWORDS = new Set(["true", "false", "null", "in"]);
  const OPEN = { "(": ")", "[": "]", "{": "}" };
  const CLOSE = { ")": "(", "]": "[", "}": "{" };
  const TOKEN = /(\s+)|([rR]?("""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?))|(\/\/[^\n]*)|(\d+\.\d*(?:[eE][+-]?\d+)?|\d+u?|0x[0-9a-fA-F]+u?)|([A-Za-z_][A-Za-z0-9_]*)|([()[\]{}])|(&&|\|\||[=!<>]=?|[-+*/%?:.,!])|(.)/g;

  const tokens = (text) => {
    const out = [];
    TOKEN.lastIndex = 0;
    let m;
    while ((m = TOKEN.exec(text)) !== null) {
      const [value] = m;
      let kind = "";
      if (m[2]) kind = "string";
      else if (m[4]) kind = "comment";
      else if (m[5]) kind = "number";
      else if (m[6]) {
        const next = text.slice(TOKEN.lastIndex).match(/^\s*\(/);
        kind = KEYWORDS.has(value) ? "keyword" : ROOTS.has(value) ? "root" : next ? "func" : "ident";
      } else if (m[7]) kind = "bracket";
      else if (m[8]) kind = "op";
      out.push({ value, kind, start: m.index });
      if (value === "") TOKEN.lastIndex += 1;
    }
    return out;
  };

  // The positions of the bracket next to the caret and its partner (-1 when unmatched).
  const matchBrackets = (list, caret) => {
    const brackets = list.filter((t) => t.kind === "bracket");
    const at = brackets.find((t) => t.start === caret - 1 || t.start === caret);
    const bad = new Set();
    const stack = [];
    const partner = new Map();
    for (const t of brackets) {
      if (OPEN[t.value]) stack.push(t);
      else {
        const top = stack[stack.length - 1];
        if (top && top.value === CLOSE[t.value]) { stack.pop(); partner.set(top.start, t.start); partner.set(t.start, top.start); }
        else bad.add(t.start);
      }
    }
    stack.forEach((t) => bad.add(t.start));
    const pair = at && partner.has(at.start) ? new Set([at.start, partner.get(at.start)]) : new Set();
    return { pair, bad };
  };

  // The character offset of the server's error position (data-error-line/column), or -1.
  const errorOffset = (area) => {
    const line = Number(area.dataset.errorLine || 0);
    const column = Number(area.dataset.errorColumn || 0);
    if (!line || !column) return -1;
    const lines = area.value.split("\n");
    if (line > lines.length) return -1;
    const before = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    return Math.min(before + column - 1, area.value.length - 1);
  };

  const escape = (s) => s.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" }[c]));

  const paint = (area) => {
    const pre = area.parentElement.querySelector(".cel-highlight");
    if (!pre) return;
    const list = tokens(area.value);
    const caret = document.activeElement === area ? area.selectionStart : -2;
    const { pair, bad } = matchBrackets(list, caret);
    const errorAt = errorOffset(area);
    pre.innerHTML = list.map((t) => {
      if (!t.kind && !(errorAt >= t.start && errorAt < t.start + t.value.length)) return escape(t.value);
      let cls = `cel-${t.kind}`;
      if (t.kind === "bracket" && pair.has(t.start)) cls += " cel-bracket-match";
      if (t.kind === "bracket" && bad.has(t.start)) cls += " cel-bracket-bad";
      if (errorAt >= t.start && errorAt < t.start + t.value.length) cls += " cel-error";
      return `<span class="${cls}">${escape(t.value)}</span>`;
    }).join("") + "\n";
    pre.scrollTop = area.scrollTop;
    pre.scrollLeft = area.scrollLeft;
  };

  // With the vendored CodeMirror bundle loaded each field becomes a CodeMirror editor; this
  // overlay is the fallback when it is not (the textarea is the posted control either way).
  const mountCodeMirror = (area) => {
    const label = document.querySelector(`label[for="${CSS.escape(area.id)}"]`);
    window.PolicyEditorCM.mount(area, {
      fetchItems: (path) => (window.PolicyEditorComplete ? window.PolicyEditorComplete.fetchItems(path) : Promise.resolve([])),
      label: label ? label.textContent.trim() : "CEL expression",
    });
    area.closest(".cel-editor").classList.add("codemirror");
    area.setAttribute("aria-hidden", "true");
    label?.addEventListener("click", (e) => {
      e.preventDefault();
      area.nextElementSibling?.shadowRoot?.querySelector(".cm-content")?.focus();
    });
  };

  const enhance = (root) => {
    root.querySelectorAll("textarea.cel:not([data-highlighted])").forEach((area) => {
      area.dataset.highlighted = "1";
      if (window.PolicyEditorCM) { mountCodeMirror(area); return; }
      const wrap = document.createElement("div");
      wrap.className = "cel-input";
      const pre = document.createElement("pre");
      pre.className = "cel-highlight";
      pre.setAttribute("aria-hidden", "true");
      area.parentElement.insertBefore(wrap, area);
      wrap.append(pre, area);
      area.closest(".cel-editor").classList.add("highlighting");
      paint(area);
    });
  };

  const onEvent = (e) => {
    if (e.target.matches?.("textarea.cel") && !e.target.classList.contains("cm-source")) paint(e.target);
  };
  ["input", "keyup", "click", "focusin", "focusout", "select"].forEach((type) => document.addEventListener(type, onEvent));
  document.addEventListener("scroll", onEvent, true);
  document.addEventListener("htmx:afterSettle", (e) => enhance(e.target));
  document.addEventListener("cel:repaint", () => document.querySelectorAll("textarea.cel").forEach((area) => {
    if (window.PolicyEditorCM && area.classList.contains("cm-source")) window.PolicyEditorCM.markError(area);
    else paint(area);
  }));
  document.addEventListener("DOMContentLoaded", () => enhance(document));
  if (document.readyState !== "loading") enhance(document);
})();
