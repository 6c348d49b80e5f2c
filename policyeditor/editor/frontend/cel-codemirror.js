// The CEL code editor: CodeMirror 6 mounted over each CEL <textarea>, which stays the form's
// real control (its value is what gets posted; tests and labels keep working through it).
// Built into static/editor/vendor/codemirror.js by build.sh; exposes window.PolicyEditorCM.
import { EditorState } from "@codemirror/state";
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection, Decoration,
  placeholder,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { StreamLanguage, bracketMatching, syntaxHighlighting, HighlightStyle } from "@codemirror/language";
import { closeBrackets, closeBracketsKeymap, autocompletion, completionKeymap } from "@codemirror/autocomplete";
import { StateEffect, StateField } from "@codemirror/state";
import { tags } from "@lezer/highlight";
import { mountYaml, setYamlDiagnostics } from "./yaml-codemirror.js";

const ROOTS = new Set(["object", "oldObject", "request", "params", "namespaceObject", "variables", "authorizer", "self"]);
const KEYWORDS = new Set(["true", "false", "null", "in"]);

// A small CEL tokenizer (strings, numbers, keywords, the declared root variables, functions).
const cel = StreamLanguage.define({
  name: "cel",
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match("//")) { stream.skipToEnd(); return "comment"; }
    if (stream.match(/^[rR]?("""|''')/)) {
      const quote = stream.current().slice(-3);
      while (!stream.eol()) { if (stream.match(quote)) return "string"; stream.next(); }
      return "string";
    }
    if (stream.match(/^[rR]?"(?:\\.|[^"\\])*"?/) || stream.match(/^[rR]?'(?:\\.|[^'\\])*'?/)) return "string";
    if (stream.match(/^(0x[0-9a-fA-F]+u?|\d+\.\d*(?:[eE][+-]?\d+)?|\d+u?)/)) return "number";
    const word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
    if (word) {
      const text = word[0];
      if (KEYWORDS.has(text)) return "keyword";
      if (ROOTS.has(text)) return "variableName.special";
      if (stream.match(/^\s*\(/, false)) return "variableName.function";
      return "variableName";
    }
    if (stream.match(/^(&&|\|\||[=!<>]=?|[-+*/%?:!])/)) return "operator";
    if (stream.match(/^[()[\]{}]/)) return "bracket";
    stream.next();
    return null;
  },
  languageData: { closeBrackets: { brackets: ["(", "[", "{", "'", '"'] } },
});

const style = HighlightStyle.define([
  { tag: tags.string, class: "cel-string" },
  { tag: tags.number, class: "cel-number" },
  { tag: tags.keyword, class: "cel-keyword" },
  { tag: tags.special(tags.variableName), class: "cel-root" },
  { tag: tags.function(tags.variableName), class: "cel-func" },
  { tag: tags.comment, class: "cel-comment" },
  { tag: tags.operator, class: "cel-op" },
]);

// The look, from the page's design tokens (custom properties inherit into the shadow root).
// A theme, not a stylesheet link: CodeMirror adopts it as a constructed sheet, which the CSP allows.
const theme = EditorView.theme({
  "&": { backgroundColor: "transparent", color: "var(--text)", fontSize: "13px" },
  "&.cm-focused": { outline: "none" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.5", minHeight: "2.6em", maxHeight: "24em" },
  ".cm-content": { padding: ".45rem 0", caretColor: "var(--text)", tabSize: "4" },
  ".cm-gutters": { backgroundColor: "var(--surface-2)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "color-mix(in srgb, var(--accent) 7%, transparent)" },
  ".cm-cursor": { borderLeftColor: "var(--text)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground": {
    backgroundColor: "color-mix(in srgb, var(--accent) 30%, transparent) !important",
  },
  "& .cm-matchingBracket": { backgroundColor: "color-mix(in srgb, var(--focus) 45%, transparent)", color: "inherit" },
  "& .cm-nonmatchingBracket": { color: "var(--danger)", backgroundColor: "var(--danger-bg)" },
  ".cel-string": { color: "var(--cel-string, #0a7d3e)" },
  ".cel-number": { color: "var(--cel-number, #a14f00)" },
  ".cel-keyword": { color: "var(--cel-keyword, #8b3fc6)", fontWeight: "600" },
  ".cel-root": { color: "var(--accent)", fontWeight: "600" },
  ".cel-func": { color: "var(--cel-func, #b3246b)" },
  ".cel-comment": { color: "var(--muted)", fontStyle: "italic" },
  ".cel-op": { color: "var(--muted)" },
  ".cel-error": { textDecoration: "wavy underline var(--danger)", textDecorationSkipInk: "none", backgroundColor: "var(--danger-bg)" },
  ".cm-tooltip.cm-tooltip-autocomplete": {
    backgroundColor: "var(--surface)", color: "var(--text)", border: "1px solid var(--border)", borderRadius: "6px",
  },
  ".cm-tooltip-autocomplete > ul": { fontFamily: "var(--mono)", fontSize: "13px" },
  ".cm-tooltip-autocomplete ul li[aria-selected]": { backgroundColor: "var(--accent)", color: "var(--accent-text)" },
  ".cm-completionDetail": { color: "var(--muted)", marginLeft: ".75em", fontStyle: "normal" },
  ".cm-tooltip.cm-completionInfo": {
    backgroundColor: "var(--surface)", color: "var(--muted)", border: "1px solid var(--border)", maxWidth: "28rem",
  },
});

// The server's error position (cel-go line:column), shown as a wavy underline.
const setError = StateEffect.define();
const errorField = StateField.define({
  create: () => Decoration.none,
  update(value, tr) {
    value = value.map(tr.changes);
    for (const effect of tr.effects) {
      if (effect.is(setError)) {
        value = effect.value == null ? Decoration.none
          : Decoration.set([Decoration.mark({ class: "cel-error" }).range(effect.value.from, effect.value.to)]);
      }
    }
    return value;
  },
  provide: (field) => EditorView.decorations.from(field),
});

const views = new WeakMap();

function completionSource(fetchItems) {
  return async (context) => {
    const before = context.matchBefore(/(?:[A-Za-z_]\w*(?:\[[^\]]*\])?\.)*[A-Za-z_]?\w*$/);
    if (!before || (before.from === before.to && !context.explicit)) return null;
    const text = before.text;
    const dot = text.lastIndexOf(".");
    const path = dot >= 0 ? text.slice(0, dot) : "";
    if (!path && !context.explicit && text.length < 1) return null;
    const items = await fetchItems(path);
    if (!items.length) return null;
    return {
      from: before.from + dot + 1,
      // The description shows in CodeMirror's info panel beside the selected option (placed
      // through the CSSOM, `style.cssText`, which the CSP allows; style attributes it blocks).
      options: items.map((item) => ({ label: item.label, detail: item.type || undefined, info: item.detail || undefined })),
      validFor: /^\w*$/,
    };
  };
}

// A CodeMirror view over a textarea, which stays the form's real control: the two stay in sync,
// `change(current, value)` turning a programmatic edit of the textarea into the view's change.
// A shadow root lets CodeMirror use constructed style sheets: the page's CSP forbids the
// <style> elements it would otherwise add to the document.
function mountOver(textarea, hostClass, extensions, change) {
  let syncing = false;
  const host = document.createElement("div");
  host.className = hostClass;
  const shadow = host.attachShadow({ mode: "open" });
  const view = new EditorView({
    root: shadow,
    parent: shadow,
    state: EditorState.create({
      doc: textarea.value,
      extensions: [
        ...extensions,
        EditorView.updateListener.of((update) => {
          if (!update.docChanged || syncing) return;
          textarea.value = update.state.doc.toString();
          textarea.dispatchEvent(new Event("input", { bubbles: true }));
        }),
      ],
    }),
  });
  textarea.after(host);
  textarea.classList.add("cm-source");
  textarea.tabIndex = -1;
  // Programmatic edits of the textarea (tests, YAML restore, completion.js) flow into the view.
  textarea.addEventListener("input", () => {
    const value = textarea.value;
    const current = view.state.doc.toString();
    if (value === current) return;
    syncing = true;
    view.dispatch({ changes: change(current, value) });
    syncing = false;
  });
  views.set(textarea, view);
  return view;
}

function mount(textarea, { fetchItems, label }) {
  if (views.has(textarea)) return views.get(textarea);
  return mountOver(textarea, "cm-host", [
    lineNumbers(), history(), placeholder(textarea.placeholder || ""), drawSelection(), highlightActiveLine(), bracketMatching(), closeBrackets(),
    cel, syntaxHighlighting(style), errorField, theme,
    autocompletion({ override: [completionSource(fetchItems)], activateOnTyping: true }),
    keymap.of([...closeBracketsKeymap, ...completionKeymap, ...historyKeymap, indentWithTab, ...defaultKeymap]),
    EditorView.lineWrapping,
    beforeInput,
    EditorView.contentAttributes.of({ "aria-label": label, spellcheck: "false", autocapitalize: "off" }),
  ], (current, value) => ({ from: 0, to: current.length, insert: value }));
}

function markError(textarea) {
  const view = views.get(textarea);
  if (!view) return;
  const line = Number(textarea.dataset.errorLine || 0);
  const column = Number(textarea.dataset.errorColumn || 0);
  let value = null;
  if (line && column && line <= view.state.doc.lines) {
    const l = view.state.doc.line(line);
    const from = Math.min(l.from + column - 1, view.state.doc.length);
    value = { from: Math.max(0, Math.min(from, view.state.doc.length - 1)), to: Math.min(from + 1, view.state.doc.length) };
    if (value.from >= value.to) value = null;
  }
  view.dispatch({ effects: setError.of(value) });
}

// Typing over a selection: Chrome's own editing would wrap the new text in a styled span, an
// inline style the CSP blocks (a console error); CodeMirror inserts it instead.
const beforeInput = EditorView.domEventHandlers({
  beforeinput(event, editor) {
    if (event.inputType !== "insertText" || event.data == null || editor.state.selection.main.empty) return false;
    event.preventDefault();
    editor.dispatch(editor.state.replaceSelection(event.data), { userEvent: "input.type", scrollIntoView: true });
    return true;
  },
});

const yamlBase = { views, theme, beforeInput, celCompletion: completionSource, mountOver };

window.PolicyEditorCM = {
  mount,
  markError,
  mountYaml: (textarea, options) => mountYaml(textarea, options, yamlBase),
  viewOf: (textarea) => views.get(textarea),
  setYamlDiagnostics: (textarea, list) => { const view = views.get(textarea); if (view) setYamlDiagnostics(view, list); },
  version: "6",
};
