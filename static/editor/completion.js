// CEL completion in the editor's expression fields: variables, request fields, object fields.
// Suggestions come from the server (the target resource's OpenAPI schema); Ctrl+Space asks.
(() => {
  "use strict";
  const editor = document.getElementById("editor");
  if (!editor) return;
  const url = editor.dataset.completeUrl;
  const cache = new Map();
  const list = document.createElement("ul");
  list.id = "cel-completions";
  list.className = "completions";
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", "Completions");
  list.hidden = true;
  document.body.appendChild(list);
  let area = null;
  let items = [];
  let active = 0;
  let token = { path: "", word: "" };

  const state = () => document.getElementById("live-state")?.dataset || {};
  const variableNames = () => [...document.querySelectorAll('input[name*=".spec.variables."][name$=".name"]')]
    .map((input) => input.value.trim()).filter(Boolean);

  const tokenAt = (textarea) => {
    const before = textarea.value.slice(0, textarea.selectionStart);
    const m = before.match(/((?:[A-Za-z_]\w*(?:\[[^\]]*\])?\.)*)([A-Za-z_]\w*)?$/);
    if (!m) return null;
    return { path: m[1].replace(/\.$/, ""), word: m[2] || "", explicitDot: m[1].length > 0 };
  };

  // "group/version/kind" of the policy's paramKind ("" without one): `params.` completes from it.
  const paramGvk = (s) => {
    try {
      const docs = JSON.parse(s.documents || "[]");
      const kind = docs.map((d) => d && d.spec && d.spec.paramKind).find(Boolean);
      return kind && kind.apiVersion && kind.kind ? `${kind.apiVersion}/${kind.kind}` : "";
    } catch (_) {
      return "";
    }
  };

  const fetchItems = async (path) => {
    const s = state();
    const params = path.startsWith("params") ? paramGvk(s) : "";
    const key = `${path}|${s.gvk}|${s.version}|${params}|${path.startsWith("variables") ? variableNames().join(",") : ""}`;
    if (cache.has(key)) return cache.get(key);
    const query = new URLSearchParams({ path, gvk: s.gvk || "", version: s.version || "", vars: variableNames().join(","), draft: editor.dataset.draft || "", params });
    const response = await fetch(`${url}?${query}`, { headers: { Accept: "application/json" } });
    const data = response.ok ? await response.json() : { items: [] };
    cache.set(key, data.items || []);
    return data.items || [];
  };

  // The CodeMirror fields ask the same endpoint through this.
  window.PolicyEditorComplete = { fetchItems };

  const close = () => {
    list.hidden = true;
    items = [];
    if (area) { area.removeAttribute("aria-activedescendant"); area.setAttribute("aria-expanded", "false"); }
  };

  const render = () => {
    list.replaceChildren(...items.map((item, i) => {
      const li = document.createElement("li");
      li.id = `cel-opt-${i}`;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", String(i === active));
      const label = document.createElement("span");
      label.className = "c-label";
      label.textContent = item.label;
      const type = document.createElement("span");
      type.className = "c-type";
      type.textContent = item.type || "";
      li.append(label, type);
      if (item.detail) li.title = item.detail;
      li.addEventListener("mousedown", (e) => { e.preventDefault(); active = i; accept(); });
      return li;
    }));
    area.setAttribute("aria-activedescendant", `cel-opt-${active}`);
    list.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: "nearest" });
  };

  const open = async (textarea, force) => {
    const t = tokenAt(textarea);
    if (!t || (!t.explicitDot && !t.word && !force)) { close(); return; }
    const found = (await fetchItems(t.path)).filter((item) => item.label.startsWith(t.word) && item.label !== t.word);
    if (textarea !== document.activeElement) return;
    if (!found.length) { close(); return; }
    area = textarea;
    token = t;
    items = found.slice(0, 50);
    active = 0;
    const box = textarea.closest(".cel-editor").getBoundingClientRect();
    list.style.setProperty("--x", `${box.left + window.scrollX}px`);
    list.style.setProperty("--y", `${box.bottom + window.scrollY + 2}px`);
    list.style.setProperty("--w", `${Math.min(box.width, 420)}px`);
    textarea.setAttribute("aria-controls", list.id);
    textarea.setAttribute("aria-expanded", "true");
    list.hidden = false;
    render();
  };

  const accept = () => {
    const item = items[active];
    if (!item || !area) return;
    // Re-read the word at the caret: typing may have gone on while suggestions were fetched.
    const current = tokenAt(area) || token;
    const caret = area.selectionStart;
    const start = caret - current.word.length;
    area.setRangeText(item.label, start, caret, "end");
    close();
    area.dispatchEvent(new Event("input", { bubbles: true }));
    area.focus();
  };

  document.addEventListener("input", (e) => {
    if (e.target.matches?.("textarea.cel") && e.isTrusted) open(e.target, false);
  });
  document.addEventListener("keydown", (e) => {
    if (!e.target.matches?.("textarea.cel")) return;
    if (e.ctrlKey && e.key === " ") { e.preventDefault(); open(e.target, true); return; }
    if (list.hidden || e.target !== area) return;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      active = (active + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
      render();
    } else if (e.key === "Enter" || e.key === "Tab") {
      e.preventDefault();
      accept();
    } else if (e.key === "Escape") {
      e.preventDefault();
      close();
    }
  });
  document.addEventListener("focusout", (e) => { if (e.target === area) setTimeout(close, 100); });
  window.addEventListener("resize", close);
})();
