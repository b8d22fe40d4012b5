// Images in the composer: an attach button, drag and drop, paste; thumbnails with a remove button; an upload with a
// progress bar; and a clear message when the chosen model cannot see images. Without this script the composer's
// plain file input still sends the images with the form (multipart).
"use strict";

(function () {
  const composer = document.getElementById("composer");
  const input = composer?.querySelector('input[type="file"][name="image"]');
  if (!composer || !input) return;
  const maxImages = Number(input.dataset.maxImages || 4);
  const maxBytes = Number(input.dataset.maxBytes || 20 * 1024 * 1024);
  const accepted = ["image/png", "image/jpeg", "image/webp", "image/gif"];
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
  const tray = composer.querySelector(".attachment-tray");
  const list = tray.querySelector("ul");
  const progress = tray.querySelector("progress");
  const note = composer.querySelector(".attachment-note");
  const modelSelect = composer.querySelector('select[name="model"]');
  let files = [];

  input.hidden = true;
  composer.querySelector(".attach-button").hidden = false;
  composer.querySelector(".attach-button").addEventListener("click", () => input.click());
  input.addEventListener("change", () => { add(input.files); input.value = ""; });
  composer.addEventListener("dragover", (event) => { event.preventDefault(); composer.classList.add("dropping"); });
  composer.addEventListener("dragleave", () => composer.classList.remove("dropping"));
  composer.addEventListener("drop", (event) => {
    event.preventDefault();
    composer.classList.remove("dropping");
    const images = [...event.dataTransfer.files].filter(isImage);
    if (images.length) add(images);
  });
  composer.querySelector("textarea").addEventListener("paste", (event) => {
    const pasted = [...event.clipboardData.items].filter((item) => item.kind === "file").map((item) => item.getAsFile())
      .filter(isImage);
    if (pasted.length) { event.preventDefault(); add(pasted); }
  });
  modelSelect?.addEventListener("change", checkVision);

  /** Whether a dropped or pasted file is this script's: an image (documents.js takes every other file). */
  function isImage(file) {
    return file.type.startsWith("image/");
  }

  /** Adds chosen files, refusing (with a note) what the server would refuse anyway. */
  function add(chosen) {
    const problems = [];
    for (const file of chosen) {
      if (!accepted.includes(file.type)) problems.push(file.name + " is not a PNG, JPEG, WebP or GIF image.");
      else if (file.size > maxBytes) problems.push(file.name + " is larger than " + Math.round(maxBytes / 1048576) + " MB.");
      else if (files.length >= maxImages) problems.push("A message can carry at most " + maxImages + " images.");
      else files.push(file);
    }
    render();
    if (problems.length) say(problems.join(" "));
  }

  /** Shows a thumbnail with a remove button for each file. */
  function render() {
    for (const image of list.querySelectorAll("img")) URL.revokeObjectURL(image.src);
    list.replaceChildren(...files.map((file, index) => {
      const item = document.createElement("li");
      const image = document.createElement("img");
      image.src = URL.createObjectURL(file);
      image.alt = file.name;
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "remove";
      remove.textContent = "×";
      remove.setAttribute("aria-label", "Remove " + file.name);
      remove.addEventListener("click", () => { files.splice(index, 1); render(); });
      item.append(image, remove);
      return item;
    }));
    tray.hidden = files.length === 0;
    checkVision();
  }

  /** Says so before sending when the chosen model cannot see images. */
  function checkVision() {
    const option = modelSelect?.selectedOptions[0];
    const blind = files.length > 0 && option?.dataset.vision === "false";
    say(blind ? "The model “" + option.value + "” cannot see images. Choose a vision model, or remove the images." : "");
    composer.dataset.blocked = blind ? "true" : "";
  }

  function say(text) {
    note.textContent = text;
    note.hidden = !text;
  }

  /** Sends the composer's fields and images as multipart with upload progress; resolves like `fetch`'s response. */
  function send(url) {
    const body = new FormData(composer);
    body.delete("image");
    for (const file of files) body.append("image", file, file.name);
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open("POST", url);
      request.setRequestHeader("Accept", "application/json");
      request.setRequestHeader("X-CSRF-Token", csrf);
      request.upload.addEventListener("progress", (event) => {
        if (!event.lengthComputable) return;
        progress.hidden = false;
        progress.value = event.loaded / event.total;
      });
      request.addEventListener("load", () => {
        progress.hidden = true;
        resolve({ status: request.status, json: async () => JSON.parse(request.responseText) });
      });
      request.addEventListener("error", () => { progress.hidden = true; reject(new Error("upload failed")); });
      request.send(body);
    });
  }

  /** Copies the thumbnails of the images just sent into the question's article, then empties the tray. */
  function moveInto(article) {
    if (article && files.length) {
      const shown = document.createElement("ul");
      shown.className = "attachments";
      for (const file of files) {
        const item = document.createElement("li");
        const image = document.createElement("img");
        image.src = URL.createObjectURL(file);
        image.alt = file.name;
        item.appendChild(image);
        shown.appendChild(item);
      }
      article.prepend(shown);
    }
    files = [];
    render();
  }

  window.parleyAttachments = {
    count: () => files.length,
    blocked: () => composer.dataset.blocked === "true",
    send,
    moveInto,
  };
})();
