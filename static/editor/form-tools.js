// The editor form's helpers: badge counts that jump to their field, section fill counts, and the
// patch-type switch that clears the other expression (with an undo).
(() => {
  "use strict";
  const form = document.getElementById("editor-form");
  if (!form) return;

  // --- the status badge: "2 errors, 1 warning"; each count jumps to its first field ---------
  const reveal = (element) => {
    for (let d = element.closest("details"); d; d = d.parentElement?.closest("details")) d.open = true;
    document.getElementById("editor")?.classList.remove("show-preview");
  };
  document.addEventListener("click", (event) => {
    const button = event.target.closest(".badge-jump");
    if (!button) return;
    const level = button.dataset.jump;
    const found = form.querySelector(`.live-errors > .field-${level}`)
      || document.querySelector(`#live .issue-${level}:not(.placed)`);
    if (!found) return;
    reveal(found);
    const box = found.closest(".live-errors");
    const control = box && form.querySelector(`[name="${CSS.escape(box.dataset.errorsFor)}"]`);
    const field = found.closest("[data-field]") || found;
    field.classList.add("jumped");
    setTimeout(() => field.classList.remove("jumped"), 1600);
    field.scrollIntoView({ block: "center" });
    const editorHost = control?.closest(".cel-editor")?.querySelector(".cm-host");
    const focusable = editorHost?.shadowRoot?.querySelector(".cm-content") || editorHost?.querySelector(".cm-content") || control;
    (focusable && focusable.type !== "hidden" ? focusable : found).focus?.({ preventScroll: true });
  });

  // --- what each folded section holds, in its summary: "2 validations", "3 set" --------------
  const filled = (el) => (el.type === "checkbox" ? el.checked : el.type !== "hidden" && el.value.trim() !== "");
  const countSections = () => {
    form.querySelectorAll("details.section").forEach((section) => {
      const out = section.querySelector(":scope > summary .section-filled");
      if (!out) return;
      const rows = section.querySelector(":scope > .section-body > fieldset.rows");
      if (rows) {
        const n = rows.querySelectorAll(":scope > .rows-list > .row").length;
        const noun = rows.querySelector(":scope > .add-row")?.textContent.replace(/^\+ Add /, "").trim() || "row";
        out.textContent = n ? `${n} ${noun}${n === 1 ? "" : "s"}` : "empty";
        return;
      }
      const controls = [...section.querySelectorAll("input, select, textarea")].filter((el) => el.name && !/:(json|present|rows|k|v)$/.test(el.name));
      const n = controls.filter(filled).length + section.querySelectorAll(".kv").length;
      out.textContent = n ? `${n} set` : "empty";
    });
  };
  form.addEventListener("input", countSections);
  form.addEventListener("change", countSections);
  document.body.addEventListener("htmx:afterSettle", countSections);
  form.addEventListener("click", () => setTimeout(countSections, 0));

  // --- patch type: a mutation has one expression; switching clears the other, with an undo ----
  const expressionOf = (row, which) => row.querySelector(`textarea[name$=".${which}.expression"]`);
  const setText = (area, text) => {
    area.value = text;
    area.dispatchEvent(new Event("input", { bubbles: true }));
  };
  form.addEventListener("change", (event) => {
    const select = event.target;
    if (!select.matches?.('select[name$=".patchType"]')) return;
    if (select.dataset.undoing) { delete select.dataset.undoing; return; }
    const row = select.closest(".row");
    // The value before this change: the last one seen, else the one the page was rendered with.
    const before = select.dataset.before ?? select.querySelector("option[selected]")?.value ?? "";
    select.dataset.before = select.value;
    const other = { ApplyConfiguration: "jsonPatch", JSONPatch: "applyConfiguration" }[select.value];
    const area = other && expressionOf(row, other);
    row.querySelector(":scope > .patch-undo")?.remove();
    if (!area || !area.value.trim()) return;
    const kept = area.value;
    setText(area, "");
    const note = document.createElement("p");
    note.className = "message message-warning small patch-undo";
    note.setAttribute("role", "status");
    const label = other === "jsonPatch" ? "JSONPatch" : "ApplyConfiguration";
    note.append(`Patch type ${select.value}: the ${label} expression was cleared (a mutation has one). `);
    const undo = document.createElement("button");
    undo.type = "button";
    undo.className = "button button-small";
    undo.textContent = "Undo";
    undo.addEventListener("click", () => {
      select.value = before;
      select.dataset.before = before;
      setText(area, kept);
      note.remove();
      select.dataset.undoing = "1";
      select.dispatchEvent(new Event("change", { bubbles: true }));
    });
    note.append(undo);
    row.querySelector(":scope > .row-fields").after(note);
  });

  // --- Try it's sample object follows the first resource rule while nobody has edited it -------
  const tryObject = document.getElementById("try-object");
  let lastSample = document.getElementById("live-state")?.dataset.sample;
  document.body.addEventListener("editor:validated", () => {
    const sample = document.getElementById("live-state")?.dataset.sample;
    if (!tryObject || !sample || sample === lastSample) return;
    if (tryObject.value === lastSample) {
      tryObject.value = sample;
      tryObject.dispatchEvent(new Event("input", { bubbles: true }));
    }
    lastSample = sample;
  });

  // --- save results float under the toolbar: a success note goes away by itself -------------
  document.body.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail.target?.id !== "save-status") return;
    const note = event.detail.target.querySelector(".message-success");
    if (note) setTimeout(() => note.remove(), 8000);
  });

  countSections();
})();
