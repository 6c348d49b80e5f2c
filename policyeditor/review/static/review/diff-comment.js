// Clicking a line of the side-by-side diff points the new comment at the field that line writes.
(() => {
  "use strict";
  const path = document.getElementById("id_field_path");
  const documentSelect = document.getElementById("id_document");
  if (!path) return;
  document.addEventListener("click", (event) => {
    const row = event.target.closest("table.diff tr[data-path]");
    if (!row || window.getSelection()?.toString()) return;
    path.value = row.dataset.path;
    if (documentSelect && [...documentSelect.options].some((o) => o.value === row.dataset.document)) {
      documentSelect.value = row.dataset.document;
    }
    document.querySelectorAll("table.diff tr.commenting").forEach((r) => r.classList.remove("commenting"));
    row.classList.add("commenting");
    const body = document.getElementById("id_body");
    body.scrollIntoView({ block: "center" });
    body.focus({ preventScroll: true });
  });
})();
