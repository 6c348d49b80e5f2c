// Reviewers comment on a field by clicking it: a "Comment" button on each label opens a small
// form that posts the field's Kubernetes path (spec.validations[0].expression) to the review app.
(() => {
  "use strict";
  const editor = document.getElementById("editor");
  const url = editor?.dataset.commentUrl;
  const form = document.getElementById("editor-form");
  if (!url || !form) return;

  // d1a2b.spec.validations.r9f3c.expression -> [document index, "spec.validations[0].expression"]
  const kubernetesPath = (name) => {
    const parts = name.split(".");
    const docs = [...document.querySelectorAll("#documents > .document")];
    const docIndex = docs.findIndex((d) => d.dataset.doc === parts[0]);
    let path = "";
    let prefix = parts[0];
    for (const part of parts.slice(1)) {
      prefix += `.${part}`;
      const row = /^r[0-9a-f]{6}$/.test(part) && form.querySelector(`.row[data-row="${CSS.escape(prefix)}"]`);
      if (row) path += `[${[...row.parentElement.children].indexOf(row)}]`;
      else path += (path ? "." : "") + part;
    }
    return [docIndex, path];
  };

  const addButtons = (root) => {
    root.querySelectorAll("[data-field]").forEach((field) => {
      const label = field.querySelector(":scope > label, :scope > legend");
      if (!label || field.querySelector(":scope > .comment-at-field") || field.dataset.field.endsWith(":yaml")) return;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "button button-small button-quiet comment-at-field";
      button.textContent = "Comment";
      button.title = `Comment on ${label.textContent.trim()} (a review comment at this field)`;
      label.after(button);
    });
  };

  form.addEventListener("click", (event) => {
    const button = event.target.closest(".comment-at-field");
    if (!button) return;
    event.preventDefault();
    const field = button.closest("[data-field]");
    if (field.querySelector(":scope > .field-comment-form")) return;
    const [docIndex, path] = kubernetesPath(field.dataset.field);
    const box = document.createElement("div");
    box.className = "field-comment-form";
    box.innerHTML = '<label></label><textarea rows="2"></textarea><div><button type="button" class="button button-small button-primary" data-post>Post comment</button> <button type="button" class="button button-small button-quiet" data-cancel>Cancel</button></div><div class="field-comment-result" aria-live="polite"></div>';
    const id = `comment-${Math.random().toString(36).slice(2, 8)}`;
    box.querySelector("label").textContent = `Comment on ${path}`;
    box.querySelector("label").htmlFor = id;
    box.querySelector("textarea").id = id;
    const errors = field.querySelector(":scope > .live-errors");
    if (errors) errors.before(box); else field.append(box);
    box.querySelector("textarea").focus();
    box.addEventListener("click", async (e) => {
      if (e.target.matches("[data-cancel]")) { box.remove(); return; }
      if (!e.target.matches("[data-post]")) return;
      const data = new FormData();
      data.append("csrfmiddlewaretoken", form.querySelector("[name=csrfmiddlewaretoken]").value);
      data.append("doc_index", String(docIndex));
      data.append("field_path", path);
      data.append("body", box.querySelector("textarea").value);
      const response = await fetch(url, { method: "POST", body: data, credentials: "same-origin" });
      const html = await response.text();
      const text = new DOMParser().parseFromString(html, "text/html").body.textContent.trim();
      if (response.ok && !/field-error/.test(html)) {
        box.remove();
        form.dispatchEvent(new CustomEvent("editor:changed", { bubbles: true }));
      } else {
        box.querySelector(".field-comment-result").textContent = text;
      }
    });
  });

  addButtons(form);
  document.body.addEventListener("htmx:afterSettle", () => addButtons(form));
})();
