// The editor page: rows, live errors at their fields, preview tabs, YAML mode, autosave, shortcuts.
// No inline script or style anywhere (the CSP forbids both); everything hangs off data-action.
(() => {
  "use strict";
  const editor = document.getElementById("editor");
  if (!editor) return;
  const form = document.getElementById("editor-form");
  const draftId = editor.dataset.draft;
  const storageKey = `policyeditor:draft:${draftId}`;
  let dirty = false;

  const changed = () => {
    dirty = true;
    form.dispatchEvent(new CustomEvent("editor:changed", { bubbles: true }));
  };

  // --- rows, pairs and documents: added, removed and reordered without a reload ---------------
  const renumber = (root) => {
    root.querySelectorAll(".rows-list").forEach((list) => {
      [...list.children].forEach((row, i) => {
        const number = row.querySelector(":scope > .row-tools > .row-number");
        if (number) number.textContent = `#${i + 1}`;
      });
    });
  };

  form.addEventListener("click", (event) => {
    const button = event.target.closest("[data-action]");
    if (!button || !form.contains(button)) return;
    const action = button.dataset.action;
    const row = button.closest(".row");
    if (action === "remove-row" && row) {
      const next = row.nextElementSibling || row.previousElementSibling;
      row.remove();
      (next?.querySelector("input, textarea, select") || form).focus?.();
    } else if (action === "move-up" && row?.previousElementSibling) {
      row.parentElement.insertBefore(row, row.previousElementSibling);
      button.focus();
    } else if (action === "move-down" && row?.nextElementSibling) {
      row.parentElement.insertBefore(row.nextElementSibling, row);
      button.focus();
    } else if (action === "add-pair") {
      const map = button.closest(".map");
      const clone = map.querySelector(":scope > template.kv-template").content.cloneNode(true);
      const list = map.querySelector(":scope > .map-list");
      list.appendChild(clone);
      list.lastElementChild.querySelector("input").focus();
    } else if (action === "remove-pair") {
      button.closest(".kv").remove();
    } else if (action === "toggle-preview") {
      // Narrow screens: the preview is a tab in place of the form.
      const showing = editor.classList.toggle("show-preview");
      button.setAttribute("aria-expanded", String(showing));
      button.textContent = showing ? "Form" : "Preview";
      return;
    } else if (action === "remove-document") {
      button.closest(".document").remove();
    } else {
      return;
    }
    renumber(form);
    changed();
  });

  form.addEventListener("input", (e) => {
    dirty = true;
    delete e.target.closest?.(".row[data-quiet]")?.dataset.quiet;
  });
  form.addEventListener("change", (e) => { delete e.target.closest?.(".row[data-quiet]")?.dataset.quiet; });

  // Resource picker: choosing a built-in resource fills the rule's empty group and version.
  form.addEventListener("change", (e) => {
    if (!e.target.matches('input[list="resources"]')) return;
    const row = e.target.closest(".row");
    const first = e.target.value.split(",")[0].trim().split("/")[0];
    const option = document.querySelector(`#resources option[value="${CSS.escape(first)}"]`);
    if (!row || !option || option.dataset.group === undefined) return;
    const groups = row.querySelector('input[name$=".apiGroups"]');
    const versions = row.querySelector('input[name$=".apiVersions"]');
    if (groups && !groups.value.trim()) groups.value = option.dataset.group === "" ? '""' : option.dataset.group;
    if (versions && !versions.value.trim()) versions.value = option.dataset.version;
  });

  // Renaming the policy renames it in the bindings that pointed at the old name.
  const policyNameInput = () => form.querySelector('.document:first-of-type input[name$=".metadata.name"]');
  let policyName = policyNameInput()?.value || "";
  form.addEventListener("input", (e) => {
    if (e.target !== policyNameInput()) return;
    form.querySelectorAll('input[name$=".spec.policyName"]').forEach((input) => {
      if (input.value === policyName) input.value = e.target.value;
    });
    policyName = e.target.value;
  });

  // --- CEL fields: line numbers and auto-height --------------------------------
  const syncGutter = (area) => {
    const gutter = area.closest(".cel-editor")?.querySelector(".cel-gutter");
    const lines = area.value.split("\n").length;
    area.rows = Math.max(2, Math.min(lines, 16));
    if (gutter) gutter.textContent = Array.from({ length: lines }, (_, i) => i + 1).join("\n");
    if (gutter) gutter.scrollTop = area.scrollTop;
  };
  const initCel = (root) => root.querySelectorAll("textarea.cel").forEach(syncGutter);
  form.addEventListener("input", (e) => { if (e.target.matches("textarea.cel")) syncGutter(e.target); });
  form.addEventListener("scroll", (e) => { if (e.target.matches?.("textarea.cel")) syncGutter(e.target); }, true);

  // --- live errors: each one goes to the control that shows its Kubernetes path ----------------
  const placeIssues = () => {
    form.querySelectorAll(".live-errors").forEach((box) => { box.replaceChildren(); });
    form.querySelectorAll("[aria-invalid=true]").forEach((el) => el.removeAttribute("aria-invalid"));
    form.querySelectorAll("textarea.cel[data-error-line]").forEach((el) => {
      delete el.dataset.errorLine;
      delete el.dataset.errorColumn;
    });
    form.querySelectorAll("details.section").forEach((d) => d.classList.remove("has-errors", "has-comments"));
    form.querySelectorAll(".section-count").forEach((c) => { c.textContent = ""; });
    document.querySelectorAll("#live .issue[data-for]").forEach((item) => {
      const target = item.dataset.for;
      if (!target) return;
      const box = form.querySelector(`.live-errors[data-errors-for="${CSS.escape(target)}"]`);
      if (!box) return;
      // A row added but not yet typed in stays quiet: its "Required value" is no news.
      if (box.closest(".row[data-quiet]")) { item.classList.add("placed", "quiet"); return; }
      const level = item.dataset.level;
      if (level === "comment") {
        // A reviewer's open thread about this field: shown where the author fixes it.
        const note = document.createElement("div");
        note.className = "field-comment";
        const who = document.createElement("strong");
        who.textContent = `${item.dataset.author}: `;
        const link = Object.assign(document.createElement("a"), { href: item.dataset.url, textContent: "thread" });
        note.append(who, item.querySelector(".issue-text").textContent, " ", link);
        box.appendChild(note);
        item.classList.add("placed");
        const section = box.closest("details.section");
        if (section) section.classList.add("has-comments");
        return;
      }
      const p = document.createElement("p");
      p.className = level === "warning" ? "field-warning" : "field-error";
      p.textContent = item.querySelector(".issue-text").textContent;
      box.appendChild(p);
      item.classList.add("placed");
      if (level !== "warning") {
        const control = form.querySelector(`[name="${CSS.escape(target)}"]`);
        control?.setAttribute("aria-invalid", "true");
        // cel-go reports <input>:line:column (column 1-based); the highlighter marks that spot.
        const at = p.textContent.match(/<input>:(\d+):(\d+):/);
        if (at && control?.matches("textarea.cel")) {
          control.dataset.errorLine = at[1];
          control.dataset.errorColumn = at[2];
        }
        const section = box.closest("details.section");
        if (section) {
          section.classList.add("has-errors");
          section.open = true;
          const count = section.querySelector(".section-count");
          count.textContent = String((parseInt(count.textContent || "0", 10) || 0) + 1);
        }
        const more = box.closest("details.more-options");
        if (more) more.open = true;
      }
    });
    // Each issue shows once: at its field, or in the summary when no field shows its path.
    document.querySelectorAll("#live details.problems").forEach((summary) => {
      summary.hidden = !summary.querySelector(".issue:not(.placed)");
    });
    document.dispatchEvent(new CustomEvent("cel:repaint"));
  };

  // --- autosave of unsaved state (this browser and the server), restore offer, leave guard -----
  const state = () => document.getElementById("live-state");
  const initial = state()?.dataset.documents || "[]";
  const banner = document.getElementById("restore-banner");
  const autosaveStatus = document.getElementById("autosave-status");
  const post = (url) => fetch(url, { method: "POST", body: new FormData(form), credentials: "same-origin" });
  const saveLocal = () => {
    const s = state();
    if (!dirty || !s?.dataset.documents) return;
    const record = { documents: s.dataset.documents, version: s.dataset.version,
      revision: document.getElementById("expected-revision").value, at: new Date().toISOString() };
    try { localStorage.setItem(storageKey, JSON.stringify(record)); } catch (_) { /* storage full or off */ }
  };
  const clearLocal = () => { try { localStorage.removeItem(storageKey); } catch (_) { /* ignore */ } };
  // The server keeps the same state a moment after the last validated change (one request per
  // pause in typing), so it survives another browser, a cleared storage or a lost laptop.
  let serverTimer = null;
  const saveServer = () => {
    if (!autosaveStatus || !dirty) return;
    clearTimeout(serverTimer);
    serverTimer = setTimeout(async () => {
      if (!dirty) return;
      try {
        const response = await post(autosaveStatus.dataset.url);
        if (response.ok && dirty) {
          const html = await response.text();
          autosaveStatus.textContent = new DOMParser().parseFromString(html, "text/html").body.textContent.trim();
        }
      } catch (_) { /* offline: the browser copy remains */ }
    }, 1500);
  };
  const serverRecord = () => banner.dataset.serverDocuments ? {
    documents: banner.dataset.serverDocuments, version: banner.dataset.serverVersion,
    revision: banner.dataset.serverRevision, at: banner.dataset.serverAt, where: "on the server" } : null;
  const localRecord = () => {
    try {
      const record = JSON.parse(localStorage.getItem(storageKey) || "null");
      return record && { ...record, where: "in this browser" };
    } catch (_) { return null; }
  };
  const offerRestore = () => {
    const found = [serverRecord(), localRecord()].filter((r) => r && r.documents !== initial);
    if (!found.length) return;
    const record = found.reduce((a, b) => (new Date(b.at) > new Date(a.at) ? b : a));
    banner.querySelector("span").textContent =
      `Unsaved changes from ${new Date(record.at).toLocaleString()} (based on r${record.revision}) were kept ${record.where}.`;
    banner.hidden = false;
    banner.addEventListener("click", (event) => {
      const action = event.target.closest("[data-action]")?.dataset.action;
      if (action === "restore") {
        // Saving the restored state is checked against the revision it was based on: if someone
        // saved since, the save is a conflict instead of overwriting their revision.
        document.getElementById("expected-revision").value = record.revision;
        const version = document.getElementById("k8s-version");
        if (record.version && version.value !== record.version) version.value = record.version;
        htmx.ajax("POST", editor.dataset.formUrl, { target: "#documents", swap: "innerHTML",
          values: { documents: record.documents } }).then(() => { dirty = true; });
        banner.hidden = true;
      } else if (action === "discard") {
        clearLocal();
        if (banner.dataset.serverDocuments) post(banner.dataset.discardUrl).catch(() => {});
        banner.hidden = true;
      }
    });
  };
  window.addEventListener("beforeunload", (event) => {
    if (dirty) { event.preventDefault(); event.returnValue = ""; }
  });
  document.body.addEventListener("editor:saved", () => {
    dirty = false;
    clearLocal();
    clearTimeout(serverTimer);
    if (autosaveStatus) autosaveStatus.textContent = "";
  });

  // --- htmx hooks -----------------------------------------------------------------------------
  document.body.addEventListener("htmx:afterSwap", (event) => {
    // OOB swaps fire afterSwap too; react once, to the element that was actually swapped.
    const target = event.target;
    if (target !== event.detail.target) return;
    if (target.id === "live") {
      placeIssues();
      highlightYaml();
      saveLocal();
      saveServer();
      document.body.dispatchEvent(new CustomEvent("editor:validated"));
    } else if (target.id === "documents" || target.closest?.(".rows-list")) {
      if (target.matches?.(".rows-list") && target.lastElementChild?.matches(".row")) {
        target.lastElementChild.dataset.quiet = "1";
      }
      initCel(target);
      renumber(form);
      changed();
    }
  });

  // --- YAML preview: highlight, copy, download, edit mode ---------------------------------------
  const escape = (s) => s.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" }[c]));
  const highlightYaml = () => {
    const pre = document.getElementById("yaml-preview");
    if (!pre) return;
    const text = pre.textContent;
    pre.dataset.source = text;
    pre.innerHTML = text.split("\n").map((line) => {
      if (/^\s*#/.test(line)) return `<span class="y-comment">${escape(line)}</span>`;
      if (line === "---") return `<span class="y-sep">---</span>`;
      const m = line.match(/^(\s*(?:- )?)([^\s:'"][^:]*?|"[^"]*"|'[^']*')(:)(\s.*|)$/);
      if (m) return `${escape(m[1])}<span class="y-key">${escape(m[2])}</span>${m[3]}<span class="y-value">${escape(m[4])}</span>`;
      return escape(line);
    }).join("\n");
  };
  const yamlText = () => document.getElementById("yaml-preview").dataset.source ?? document.getElementById("yaml-preview").textContent;
  const status = (text) => { document.getElementById("copy-status").textContent = text; };
  const editBox = document.getElementById("yaml-edit-box");
  // Live validation swaps the preview out of band: always look the current element up.
  const preview = () => document.getElementById("yaml-preview");
  const yamlEdit = document.getElementById("yaml-edit");
  document.getElementById("panel-yaml").addEventListener("click", async (event) => {
    const button = event.target.closest("[data-action]");
    if (!button) return;
    if (button.dataset.action === "copy-yaml") {
      try { await navigator.clipboard.writeText(yamlText()); status("Copied."); } catch (_) { status("Copy failed: select the text and copy it."); }
    } else if (button.dataset.action === "download-yaml") {
      const url = URL.createObjectURL(new Blob([yamlText()], { type: "application/yaml" }));
      const a = Object.assign(document.createElement("a"), { href: url, download: `${editor.querySelector("h1").textContent.trim() || "draft"}.yaml` });
      document.body.appendChild(a); a.click(); a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } else if (button.dataset.action === "toggle-yaml-edit") {
      const editing = editBox.hidden;
      editBox.hidden = !editing;
      preview().hidden = editing;
      button.setAttribute("aria-pressed", String(editing));
      button.textContent = editing ? "Back to preview" : "Edit YAML";
      if (editing) openYamlEditor(); else closeYamlEditor();
    }
  });
  yamlEdit.addEventListener("input", () => { dirty = true; });

  // --- the YAML editor (CodeMirror when its bundle loaded; the plain textarea otherwise) --------
  let yamlView = null;
  let yamlCursor = null;
  const mountYaml = () => {
    if (yamlView || !window.PolicyEditorCM?.mountYaml) return yamlView;
    try {
      yamlView = window.PolicyEditorCM.mountYaml(yamlEdit, {
        helpUrl: editor.dataset.yamlHelpUrl,
        version: () => state()?.dataset.version || "",
        fetchCel: (path) => window.PolicyEditorComplete?.fetchItems(path) ?? Promise.resolve([]),
        label: "YAML of the documents",
      });
    } catch (_) { yamlView = null; /* the textarea stays usable */ }
    return yamlView;
  };
  const openYamlEditor = () => {
    // The preview is the YAML editor's own text with the form's later changes written into it
    // (the server patches that text), so switching views never loses what was typed.
    const text = yamlText();
    if (yamlEdit.value !== text) {
      yamlEdit.value = text;
      yamlEdit.dispatchEvent(new Event("input", { bubbles: true }));
    }
    const view = mountYaml();
    if (view) {
      if (yamlCursor) {
        const at = Math.min(yamlCursor.anchor, view.state.doc.length);
        view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
      }
      view.focus();
    } else {
      yamlEdit.focus();
    }
    showYamlDiagnostics();
  };
  const closeYamlEditor = () => {
    if (yamlView) yamlCursor = { anchor: yamlView.state.selection.main.anchor };
  };
  const showYamlDiagnostics = () => {
    if (!yamlView) return;
    const problem = document.getElementById("yaml-problem")?.textContent.trim() || "";
    let list = [];
    if (problem) {
      const at = problem.match(/line (\d+), column (\d+)/);
      list = [{ line: at ? Number(at[1]) : 1, column: at ? Number(at[2]) : 1, severity: "error", message: problem }];
    } else if (yamlEdit.value === yamlText()) {
      // The live report was placed in this very text: its lines and columns hold.
      try { list = JSON.parse(document.getElementById("yaml-diagnostics")?.dataset.diagnostics || "[]"); } catch (_) { list = []; }
    } else {
      return;  // the text changed since the last report: keep the marks until the next one
    }
    window.PolicyEditorCM.setYamlDiagnostics(yamlEdit, list);
  };
  document.body.addEventListener("htmx:afterSettle", () => {
    if (editBox.hidden) return;
    preview().hidden = true;  // a fresh preview arrived out of band; the YAML editor stays in its place
    showYamlDiagnostics();
  });

  // --- tabs and keyboard shortcuts --------------------------------------------------------------
  const tabs = [...document.querySelectorAll('.preview [role="tab"]')];
  const selectTab = (tab) => {
    tabs.forEach((t) => {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    });
    tab.focus();
    if (tab.id === "tab-try") htmx.trigger("#try-form", "submit");
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => selectTab(tab));
    tab.addEventListener("keydown", (e) => {
      if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
        selectTab(tabs[(i + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length]);
      }
    });
  });
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s") {
      e.preventDefault();
      document.getElementById("save-button").click();
    } else if (e.altKey && ["1", "2", "3"].includes(e.key) && tabs[Number(e.key) - 1]) {
      e.preventDefault();
      selectTab(tabs[Number(e.key) - 1]);
    } else if ((e.ctrlKey || e.metaKey) && e.key === "Enter" && e.target.closest("#try-form")) {
      e.preventDefault();
      htmx.trigger("#try-form", "submit");
    }
  });

  // A link that opens the editor on Try it (an impact run's row) says so with #try.
  if (window.location.hash === "#try") selectTab(document.getElementById("tab-try"));

  initCel(form);
  renumber(form);
  highlightYaml();
  offerRestore();
})();
