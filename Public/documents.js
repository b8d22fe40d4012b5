// Documents in the composer: an Attach button, drag and drop, paste (images go to attachments.js, every other file
// here). Each document is uploaded as soon as it is chosen, with a progress bar on its chip; the server then reads it,
// and the chip says "reading…" until it is ready (its type and pages or size) or failed (why; it is not sent). A
// ready document travels with the send as a hidden `document_id` field, and Send waits while any document is still
// uploading or being read. Without this script the composer's plain file input sends the documents with the form.
"use strict";

(function () {
  const composer = document.getElementById("composer");
  const input = composer?.querySelector('input[type="file"][name="document"]');
  if (!composer || !input) return;
  const conversationID = document.getElementById("chat").dataset.conversation;
  const maxDocuments = Number(input.dataset.maxDocuments || 10);
  const maxBytes = Number(input.dataset.maxDocumentBytes || 32 * 1048576);
  const extensions = input.accept.split(",").map((accepted) => accepted.trim().replace(/^\./, "").toLowerCase());
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
  const tray = composer.querySelector(".document-tray");
  const list = tray.querySelector("ul");
  const note = composer.querySelector(".document-note");
  const wait = document.getElementById("document-wait");
  const send = document.getElementById("send");
  const pollMilliseconds = 500;
  const maxPolls = 240; // two minutes of reading, then the chip gives up
  let entries = [];

  // The plain input stays for the button to open; without its name, a send never carries its files a second time.
  input.hidden = true;
  input.removeAttribute("name");
  const attach = composer.querySelector(".attach-documents");
  attach.hidden = false;
  attach.addEventListener("click", () => input.click());
  input.addEventListener("change", () => { add(input.files); input.value = ""; });
  composer.addEventListener("dragover", (event) => event.preventDefault());
  composer.addEventListener("drop", (event) => {
    event.preventDefault();
    const documents = [...event.dataTransfer.files].filter(isDocument);
    if (documents.length) add(documents);
  });
  composer.querySelector("textarea").addEventListener("paste", (event) => {
    const pasted = [...event.clipboardData.items].filter((item) => item.kind === "file").map((item) => item.getAsFile())
      .filter(isDocument);
    if (pasted.length) { event.preventDefault(); add(pasted); }
  });

  /** Whether a dropped or pasted file is this script's: anything but an image (attachments.js takes those). */
  function isDocument(file) {
    return !file.type.startsWith("image/");
  }

  /** The lower-case extension of a file name ("" when it has none). */
  function extension(name) {
    const dot = name.lastIndexOf(".");
    return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
  }

  /** Uploads each chosen file at once, refusing (with a note) what the server would refuse anyway. */
  function add(chosen) {
    const problems = [];
    for (const file of chosen) {
      if (!extensions.includes(extension(file.name))) {
        problems.push(file.name + " is not a document Parley reads (PDF, DOCX, text, Markdown, CSV, JSON, HTML or code).");
      } else if (file.size > maxBytes) {
        problems.push(file.name + " is larger than " + Math.round(maxBytes / 1048576) + " MB.");
      } else if (entries.filter((entry) => entry.status !== "failed").length >= maxDocuments) {
        problems.push("A message can carry at most " + maxDocuments + " documents.");
      } else {
        upload(chip(file.name), file);
      }
    }
    say(problems.join(" "));
  }

  /** A new chip in the tray for a document named `name`, and the entry that follows it. */
  function chip(name) {
    const item = document.createElement("li");
    item.className = "document-chip";
    const title = document.createElement("span");
    title.className = "document-name";
    title.textContent = name;
    const detail = document.createElement("span");
    detail.className = "document-detail";
    const progress = document.createElement("progress");
    progress.max = 1;
    progress.value = 0;
    progress.setAttribute("aria-label", "Uploading " + name);
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "remove";
    remove.textContent = "×";
    remove.setAttribute("aria-label", "Remove " + name);
    item.append(title, " ", detail, progress, remove);
    list.append(item);
    const entry = { name, item, detail, progress, id: null, document: null, request: null, timer: 0, polls: 0 };
    remove.addEventListener("click", () => discard(entry));
    entries.push(entry);
    show(entry, "uploading", "uploading…");
    return entry;
  }

  /** Shows where a document is on its chip (unless it was removed meanwhile); a ready one also gets the hidden field
   * that sends it. */
  function show(entry, status, text) {
    if (!entries.includes(entry)) return;
    entry.status = status;
    entry.item.dataset.status = status;
    entry.detail.textContent = text;
    entry.progress.hidden = status !== "uploading";
    entry.item.querySelector('input[name="document_id"]')?.remove();
    if (status === "ready") {
      const field = document.createElement("input");
      field.type = "hidden";
      field.name = "document_id";
      field.value = entry.id;
      entry.item.append(field);
    }
    changed();
  }

  /** Posts one file to the conversation's documents, its progress on the chip; the answer says how it is read. */
  function upload(entry, file) {
    const body = new FormData();
    body.append("csrf_token", csrf);
    body.append("document", file, file.name);
    const request = new XMLHttpRequest();
    entry.request = request;
    request.open("POST", "/c/" + conversationID + "/documents");
    request.setRequestHeader("Accept", "application/json");
    request.setRequestHeader("X-CSRF-Token", csrf);
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) entry.progress.value = event.loaded / event.total;
    });
    request.addEventListener("load", () => {
      entry.request = null;
      const answer = parsed(request.responseText);
      const stored = answer?.documents?.[0];
      if (request.status < 300 && stored) update(entry, stored);
      else show(entry, "failed", answer?.error?.message ?? "The upload failed (HTTP " + request.status + ").");
    });
    request.addEventListener("error", () => {
      entry.request = null;
      show(entry, "failed", "The upload failed: the server is unreachable.");
    });
    request.send(body);
  }

  /** A response's JSON, or null when it has none. */
  function parsed(text) {
    try { return JSON.parse(text); } catch { return null; }
  }

  /** Shows a document as the server has it, and asks again in a moment (a bounded number of times) while it is read. */
  function update(entry, stored) {
    if (!entries.includes(entry)) return; // removed meanwhile
    entry.id = stored.id;
    entry.document = stored;
    if (stored.status === "ready") show(entry, "ready", summary(stored));
    else if (stored.status === "failed") show(entry, "failed", stored.failure || "It could not be read.");
    else if (entry.polls >= maxPolls) show(entry, "failed", "Reading it takes too long: remove it and try again.");
    else {
      if (entry.status !== "reading") show(entry, "reading", "reading…");
      entry.polls += 1;
      entry.timer = setTimeout(() => poll(entry), pollMilliseconds);
    }
  }

  /** Reads a document's state again; a lost connection or a busy server only costs one of its polls. */
  async function poll(entry) {
    const response = await fetch("/api/documents/" + entry.id, {
      headers: { "Accept": "application/json" }, credentials: "same-origin",
    }).catch(() => null);
    const answer = response ? await response.json().catch(() => null) : null;
    if (response?.ok && answer) update(entry, answer);
    else if (response && response.status < 500) {
      show(entry, "failed", answer?.error?.message ?? "It could not be read (HTTP " + response.status + ").");
    } else update(entry, entry.document);
  }

  /** Removes a document: stops its upload, or deletes it on the server once it is there; then its chip goes. */
  async function discard(entry) {
    if (entry.id !== null) {
      const response = await fetch("/api/documents/" + entry.id, {
        method: "DELETE", headers: { "Accept": "application/json", "X-CSRF-Token": csrf }, credentials: "same-origin",
      }).catch(() => null);
      if (!response?.ok && response?.status !== 404) {
        say(entry.name + " could not be removed. Try again.");
        return;
      }
    }
    entry.request?.abort();
    clearTimeout(entry.timer);
    entries = entries.filter((other) => other !== entry);
    entry.item.remove();
    say("");
    changed();
    attach.focus(); // the removed chip had the focus
  }

  /** A ready document's type and pages (a PDF) or size, worded as the server's page words them. */
  function summary(stored) {
    return stored.label + " · " + (stored.kind === "pdf" ? count(stored.pages, "page") : size(stored.bytes));
  }

  /** "1 page", "12 pages". */
  function count(number, noun) {
    return number + " " + noun + (number === 1 ? "" : "s");
  }

  /** A size in bytes, KB or MB (1,024 based), as the server's page writes it. */
  function size(bytes) {
    if (bytes < 1024) return count(bytes, "byte");
    if (bytes < 1048576) return Math.round(bytes / 1024) + " KB";
    return (bytes / 1048576).toFixed(1) + " MB";
  }

  /** Hides an empty tray, and tells the page whether Send must wait, with the reason as Send's description. */
  function changed() {
    tray.hidden = entries.length === 0;
    const waiting = pending();
    wait.hidden = !waiting;
    if (waiting) send.setAttribute("aria-describedby", wait.id);
    else send.removeAttribute("aria-describedby");
    document.dispatchEvent(new CustomEvent("parley:documents"));
  }

  /** Whether a chosen document is still uploading or being read. */
  function pending() {
    return entries.some((entry) => entry.status === "uploading" || entry.status === "reading");
  }

  /** Shows a note under the tray (read out as a status), or hides it when `text` is empty. */
  function say(text) {
    note.textContent = text;
    note.hidden = !text;
  }

  /** Shows the documents just sent as chips in the question's article, as the server's page does, then empties the
   * tray (which alone is done when there is no article). */
  function moveInto(article) {
    const sent = entries.filter((entry) => entry.status === "ready").map((entry) => entry.document);
    if (article && sent.length) {
      const shown = document.createElement("ul");
      shown.className = "documents";
      shown.setAttribute("aria-label", "Documents");
      for (const stored of sent) {
        const link = document.createElement("a");
        link.href = stored.url;
        link.target = "_blank";
        link.rel = "noopener";
        const name = document.createElement("span");
        name.className = "document-name";
        name.textContent = stored.name;
        const detail = document.createElement("span");
        detail.className = "document-detail";
        detail.textContent = summary(stored);
        link.append(name, " ", detail);
        const item = document.createElement("li");
        item.append(link);
        shown.append(item);
      }
      article.querySelector(".content").before(shown);
    }
    for (const entry of entries) clearTimeout(entry.timer);
    entries = [];
    list.replaceChildren();
    say("");
    changed();
  }

  window.parleyDocuments = { pending, moveInto };
})();
