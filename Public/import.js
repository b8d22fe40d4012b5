// Parley's settings page: sends the chosen file to POST /settings/import as a JSON body (uploads of
// multipart forms come later) and says what happened. Without JavaScript the form stays hidden.
"use strict";
(function () {
  const form = document.getElementById("import-form");
  if (!form) return;
  const file = document.getElementById("import-file");
  const status = document.getElementById("import-status");
  const token = document.querySelector('meta[name="csrf-token"]').content;
  form.hidden = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!file.files.length) return;
    status.textContent = "Importing…";
    try {
      const response = await fetch("/settings/import", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": token },
        body: file.files[0],
      });
      const body = await response.json();
      status.textContent = response.ok
        ? "Imported " + body.imported + " conversation" + (body.imported === 1 ? "" : "s") + "."
        : body.error.message;
    } catch (error) {
      status.textContent = "The import failed: " + error.message;
    }
  });
})();
