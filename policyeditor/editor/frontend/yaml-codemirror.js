// The YAML editor: CodeMirror 6 with YAML mode over the "Edit YAML" <textarea>, which stays the
// form's real control. Keys and enum values complete from the server's schemas, CEL inside
// expression values is highlighted and completes like the CEL fields, the live report's issues
// show at their line and column (lint gutter), and hovering a key shows its documentation.
import { EditorState, RangeSetBuilder } from "@codemirror/state";
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection, Decoration, ViewPlugin, hoverTooltip,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { syntaxHighlighting, HighlightStyle } from "@codemirror/language";
import { autocompletion, completionKeymap } from "@codemirror/autocomplete";
import { yaml } from "@codemirror/lang-yaml";
import { setDiagnostics, lintGutter } from "@codemirror/lint";
import { tags } from "@lezer/highlight";

const CEL_KEY = /^(\s*(?:-\s+)?)(expression|messageExpression|valueExpression):[ \t]*(.*)$/;
const KEY = /^(\s*(?:-\s+)?)([A-Za-z_$][\w.\-/]*|"[^"]*"|'[^']*'):(?=\s|$)/;
const CEL_TOKEN = /([rR]?(?:"(?:\\.|[^"\\])*"?|'(?:\\.|[^'\\])*'?))|(\d+\.\d*(?:[eE][+-]?\d+)?|\d+u?)|([A-Za-z_]\w*)(\s*\()?|(&&|\|\||[=!<>]=?|[-+*/%?!])/g;
const CEL_ROOTS = new Set(["object", "oldObject", "request", "params", "namespaceObject", "variables", "authorizer", "self"]);
const CEL_WORDS = new Set(["true", "false", "null", "in"]);

const yamlStyle = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], class: "y-key" },
  { tag: [tags.string, tags.special(tags.string), tags.content], class: "y-string" },
  { tag: tags.comment, class: "y-comment" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], class: "y-atom" },
  { tag: [tags.meta, tags.labelName, tags.typeName], class: "y-meta" },
]);

// CEL in expression values: each value's text range (one-line or a block scalar's lines).
export function celRanges(doc) {
  const ranges = [];
  for (let i = 1; i <= doc.lines; i++) {
    const line = doc.line(i);
    const m = CEL_KEY.exec(line.text);
    if (!m) continue;
    const keyColumn = m[1].length;
    const value = m[3];
    if (/^[|>][-+0-9]*\s*(#.*)?$/.test(value)) {
      let j = i + 1;
      for (; j <= doc.lines; j++) {
        const l = doc.line(j);
        if (!l.text.trim()) continue;
        const indent = l.text.length - l.text.trimStart().length;
        if (indent <= keyColumn) break;
        ranges.push({ from: l.from + indent, to: l.to });
      }
      i = j - 1;
    } else if (value.trim()) {
      let from = line.to - value.length;
      let to = line.to;
      const quote = value[0];
      if (quote === '"' || quote === "'") {
        from += 1;
        const trimmed = value.trimEnd();
        if (trimmed.length > 1 && trimmed.endsWith(quote)) to = line.to - value.length + trimmed.length - 1;
      }
      ranges.push({ from, to });
    }
  }
  return ranges;
}

function celDecorations(view) {
  const builder = new RangeSetBuilder();
  const doc = view.state.doc;
  for (const range of celRanges(doc)) {
    const text = doc.sliceString(range.from, range.to);
    CEL_TOKEN.lastIndex = 0;
    let m;
    while ((m = CEL_TOKEN.exec(text)) !== null) {
      if (!m[0]) { CEL_TOKEN.lastIndex += 1; continue; }
      let cls = "";
      let length = m[0].length;
      if (m[1]) cls = "cel-string";
      else if (m[2]) cls = "cel-number";
      else if (m[3]) {
        length = m[3].length;
        cls = CEL_WORDS.has(m[3]) ? "cel-keyword" : CEL_ROOTS.has(m[3]) ? "cel-root" : m[4] ? "cel-func" : "";
      } else if (m[5]) cls = "cel-op";
      if (cls) builder.add(range.from + m.index, range.from + m.index + length, Decoration.mark({ class: `cel-token ${cls}` }));
    }
  }
  return builder.finish();
}

const celHighlight = ViewPlugin.fromClass(class {
  constructor(view) { this.decorations = celDecorations(view); }
  update(update) { if (update.docChanged) this.decorations = celDecorations(update.view); }
}, { decorations: (plugin) => plugin.decorations });

// Where the cursor is in the YAML: the document's apiVersion and kind, and the field path.
function documentOf(doc, lineNumber) {
  let start = lineNumber;
  while (start > 1 && !/^---/.test(doc.line(start).text)) start--;
  if (/^---/.test(doc.line(start).text)) start++;
  let end = lineNumber;
  while (end < doc.lines && !/^---/.test(doc.line(end + 1).text)) end++;
  let api = "";
  let kind = "";
  for (let i = start; i <= end; i++) {
    const text = doc.line(i).text;
    let m = /^kind:\s*["']?([\w.]+)/.exec(text);
    if (m) kind = m[1];
    m = /^apiVersion:\s*["']?([\w./-]+)/.exec(text);
    if (m) api = m[1];
  }
  return { api, kind, start };
}

const unquote = (key) => key.replace(/^["']|["']$/g, "");

// The keys above a key written at `column` of line `lineNumber`, root first ("[]" steps are dropped).
export function parentPath(doc, lineNumber, column, start) {
  const path = [];
  let current = column;
  for (let i = lineNumber - 1; i >= start && current > 0; i--) {
    const text = doc.line(i).text;
    if (!text.trim() || /^\s*#/.test(text)) continue;
    const indent = text.length - text.trimStart().length;
    const dash = /^(\s*)-(\s+|$)/.exec(text);
    if (dash) {
      const dashColumn = dash[1].length;
      if (dashColumn < current - 0.5) {
        const key = KEY.exec(text);
        if (key && key[1].length < current) path.unshift(unquote(key[2]));
        current = dashColumn + 0.5;  // the list's key may sit at the dash's column
      }
      continue;
    }
    const key = KEY.exec(text);
    if (key && indent < current) {
      path.unshift(unquote(key[2]));
      current = indent;
    }
  }
  return path;
}

function contextAt(state, pos) {
  const doc = state.doc;
  const line = doc.lineAt(pos);
  const before = line.text.slice(0, pos - line.from);
  const { api, kind, start } = documentOf(doc, line.number);
  return { doc, line, before, api, kind, start };
}

function yamlSource(options) {
  const cache = new Map();
  const help = async (api, kind, path) => {
    const query = new URLSearchParams({ api, kind, path: path.join("."), version: options.version() });
    const key = query.toString();
    if (!cache.has(key)) {
      cache.set(key, fetch(`${options.helpUrl}?${query}`, { headers: { Accept: "application/json" } })
        .then((r) => (r.ok ? r.json() : { items: [], enum: [], doc: "" }))
        .catch(() => ({ items: [], enum: [], doc: "" })));
    }
    return cache.get(key);
  };
  return { help };
}

function completionSource(options, helper, celSource) {
  return async (context) => {
    const { state, pos } = context;
    if (celRanges(state.doc).some((r) => pos >= r.from && pos <= r.to)) return celSource(context);
    const { doc, line, before, api, kind, start } = contextAt(state, pos);
    const asKey = /^(\s*(?:-\s+)?)([\w-]*)$/.exec(before);
    if (asKey) {
      if (!asKey[2] && !context.explicit) return null;
      const column = asKey[1].length;
      const path = column === 0 ? [] : parentPath(doc, line.number, column, start);
      if (!kind && path.length === 0) {
        return { from: pos - asKey[2].length, options: ["apiVersion", "kind", "metadata", "spec"].map((label) => ({ label, type: "property" })) };
      }
      const data = await helper.help(api, kind, path);
      if (!data.items.length) return null;
      return {
        from: pos - asKey[2].length,
        options: data.items.map((item) => ({ label: item.label, detail: item.type || undefined, type: "property", apply: `${item.label}: ` })),
        validFor: /^[\w-]*$/,
      };
    }
    const asValue = /^(\s*(?:-\s+)?)([\w-]+):\s+([\w-]*)$/.exec(before);
    if (asValue) {
      const path = [...parentPath(doc, line.number, asValue[1].length, start), asValue[2]];
      const data = await helper.help(api, kind, path);
      if (!data.enum.length) return null;
      return { from: pos - asValue[3].length, options: data.enum.map((label) => ({ label, type: "enum" })), validFor: /^[\w-]*$/ };
    }
    return null;
  };
}

function hover(helper) {
  return hoverTooltip(async (view, pos) => {
    const { doc, line, api, kind, start } = contextAt(view.state, pos);
    const key = KEY.exec(line.text);
    if (!key) return null;
    const from = line.from + key[1].length;
    const to = from + key[2].length;
    if (pos < from || pos > to) return null;
    const path = [...parentPath(doc, line.number, key[1].length, start), unquote(key[2])];
    const data = await helper.help(api, kind, path);
    if (!data.doc) return null;
    return {
      pos: from,
      end: to,
      above: true,
      create() {
        const dom = document.createElement("div");
        dom.className = "cm-yaml-doc";
        const title = document.createElement("strong");
        title.textContent = `${path.join(".")}${data.type ? ` (${data.type})` : ""}`;
        const body = document.createElement("p");
        body.textContent = data.doc;
        dom.append(title, body);
        return { dom };
      },
    };
  }, { hoverTime: 250 });
}

const yamlTheme = EditorView.theme({
  ".cm-scroller": { maxHeight: "70vh", minHeight: "16em" },
  ".y-key": { color: "var(--accent)" },
  ".y-string": { color: "var(--cel-string, #0a7d3e)" },
  ".y-comment": { color: "var(--muted)", fontStyle: "italic" },
  ".y-atom": { color: "var(--cel-number, #a14f00)" },
  ".y-meta": { color: "var(--muted)" },
  ".cm-yaml-doc": { padding: ".4rem .6rem", maxWidth: "32rem", fontSize: "13px", lineHeight: "1.4" },
  ".cm-yaml-doc p": { margin: ".3rem 0 0", color: "var(--muted)" },
  ".cm-tooltip": { backgroundColor: "var(--surface)", color: "var(--text)", border: "1px solid var(--border)", borderRadius: "6px" },
  ".cm-diagnostic": { padding: ".3rem .6rem", fontFamily: "var(--sans, inherit)" },
  ".cm-diagnostic-error": { borderLeft: "4px solid var(--danger)" },
  ".cm-diagnostic-warning": { borderLeft: "4px solid var(--warn, #b7791f)" },
  ".cm-lintRange-error": { textDecoration: "wavy underline var(--danger)", textDecorationSkipInk: "none" },
  ".cm-lintRange-warning": { textDecoration: "wavy underline var(--warn, #b7791f)", textDecorationSkipInk: "none" },
  ".cm-lint-marker": { width: "0.8em", height: "0.8em" },
});

// The smallest single change from `a` to `b`: the cursor and scroll stay where they were.
function minimalChange(a, b) {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) { endA--; endB--; }
  return { from: start, to: endA, insert: b.slice(start, endB) };
}

export function mountYaml(textarea, options, base) {
  if (base.views.has(textarea)) return base.views.get(textarea);
  const helper = yamlSource(options);
  return base.mountOver(textarea, "cm-host cm-yaml-host", [
    lineNumbers(), lintGutter(), history(), drawSelection(), highlightActiveLine(),
    yaml(), syntaxHighlighting(yamlStyle), celHighlight, base.theme, yamlTheme,
    autocompletion({ override: [completionSource(options, helper, base.celCompletion(options.fetchCel))], activateOnTyping: true }),
    hover(helper),
    keymap.of([...completionKeymap, ...historyKeymap, indentWithTab, ...defaultKeymap]),
    EditorState.tabSize.of(2),
    base.beforeInput,
    EditorView.contentAttributes.of({ "aria-label": options.label || "YAML", spellcheck: "false", autocapitalize: "off" }),
  ], minimalChange);
}

// Diagnostics given as 1-based line/column (the server's live report placed in the YAML).
export function setYamlDiagnostics(view, list) {
  const doc = view.state.doc;
  const diagnostics = [];
  for (const item of list) {
    if (!item.line || item.line > doc.lines) continue;
    const line = doc.line(item.line);
    const from = Math.min(line.from + Math.max(0, (item.column || 1) - 1), line.to);
    const to = line.to > from ? line.to : Math.min(from + 1, doc.length);
    diagnostics.push({ from, to: Math.max(to, from), severity: item.severity === "warning" ? "warning" : "error", message: item.message });
  }
  view.dispatch(setDiagnostics(view.state, diagnostics));
}
