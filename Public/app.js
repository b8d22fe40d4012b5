// Parley's browser script: streaming replies over EventSource, Stop, and a composer that sends without
// reloading. Every page works without it; this file only adds to the server-rendered HTML.
"use strict";

(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";

  /** Posts a form's fields as URL-encoded data with the CSRF header, asking for JSON. */
  function post(url, fields) {
    return fetch(url, {
      method: "POST",
      headers: { "Accept": "application/json", "X-CSRF-Token": csrf,
                 "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
      credentials: "same-origin",
    });
  }

  /** A new id for a send, so that a retry or a double click never starts a second reply. */
  function newRequestID() {
    return crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random().toString(16).slice(2);
  }

  /** Grows a text box with its content. */
  function autogrow(textarea) {
    textarea.style.height = "auto";
    textarea.style.height = Math.min(textarea.scrollHeight, window.innerHeight * 0.4) + "px";
  }

  /** Shows local times for every <time> element. */
  function localizeTimes(root) {
    for (const time of root.querySelectorAll("time[datetime]")) {
      const date = new Date(time.getAttribute("datetime"));
      if (!isNaN(date)) time.textContent = date.toLocaleString();
    }
  }

  /** Enter sends, Shift+Enter adds a line, for every composer. */
  function wireComposerKeys(form) {
    const textarea = form.querySelector("textarea");
    if (!textarea) return;
    textarea.addEventListener("input", () => autogrow(textarea));
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
  }

  /** Adds a language label and a Copy button to every code block under `root` that has none yet. */
  function decorateCode(root) {
    for (const pre of root.querySelectorAll("pre:not([data-copy])")) {
      pre.dataset.copy = "";
      const language = /(?:^|\s)language-(\S+)/.exec(pre.querySelector("code")?.className ?? "");
      if (language) pre.dataset.lang = language[1];
      const button = document.createElement("button");
      button.type = "button";
      button.className = "copy";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy code" + (language ? " (" + language[1] + ")" : ""));
      button.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(pre.querySelector("code")?.innerText ?? pre.innerText);
          button.textContent = "Copied";
        } catch {
          button.textContent = "Copy failed";
        }
        setTimeout(() => { button.textContent = "Copy"; }, 1500);
      });
      pre.appendChild(button);
    }
  }

  localizeTimes(document);
  decorateCode(document);
  document.querySelectorAll("form.composer").forEach(wireComposerKeys);

  const chat = document.getElementById("chat");
  if (!chat) return;

  const conversationID = chat.dataset.conversation;
  const messages = document.getElementById("messages");
  const composer = document.getElementById("composer");
  const textarea = composer.querySelector("textarea");
  const sendButton = document.getElementById("send");
  const stopForm = document.getElementById("stop-form");
  const notice = document.getElementById("notice");
  let streaming = stopForm && !stopForm.hidden;

  function setStreaming(on) {
    streaming = on;
    stopForm.hidden = !on;
    sendButton.disabled = on;
    const regenerate = document.getElementById("regenerate-form");
    if (regenerate) regenerate.hidden = on;
  }

  function showNotice(text) {
    notice.textContent = text;
    notice.hidden = !text;
  }

  function nearBottom() {
    return window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;
  }

  // While a reply grows, the view follows it only for a reader at the bottom; anyone who scrolled up gets a
  // "Jump to latest" button instead, which brings the view (and the following) back.
  const jump = document.createElement("button");
  jump.type = "button";
  jump.className = "jump-latest";
  jump.textContent = "Jump to latest ↓";
  jump.hidden = true;
  jump.addEventListener("click", () => {
    window.scrollTo(0, document.body.scrollHeight);
    jump.hidden = true;
  });
  document.body.appendChild(jump);
  window.addEventListener("scroll", () => { if (nearBottom()) jump.hidden = true; }, { passive: true });

  function followIfAtBottom(wasAtBottom) {
    if (wasAtBottom) window.scrollTo(0, document.body.scrollHeight);
    else jump.hidden = false;
  }

  /** The article of a message, created when it is not on the page yet. */
  function messageArticle(id, role) {
    let article = document.getElementById("m" + id);
    if (!article) {
      article = document.createElement("article");
      article.className = "message " + role;
      article.id = "m" + id;
      article.dataset.id = id;
      article.innerHTML = '<div class="content"></div><footer class="meta"></footer>';
      messages.appendChild(article);
    }
    return article;
  }

  /** Shows raw text that came before its formatted tail, at the end of the innermost last block of the tail. */
  function showPendingText(tail, text) {
    let pending = tail.querySelector(".pending");
    if (!pending) {
      let block = tail;
      for (;;) {
        const last = [...block.children].reverse().find((child) => !child.matches("button, input, img, br, hr"));
        if (!last) break;
        block = last;
      }
      pending = document.createElement("span");
      pending.className = "pending";
      block.appendChild(pending);
    }
    pending.textContent += text;
  }

  /** Resets a reply's content to a committed part and a replaceable tail. */
  function startReply(article) {
    const content = article.querySelector(".content");
    content.innerHTML = '<div class="committed"></div><div class="tail"></div>';
    article.querySelector(".error")?.remove();
    if (!article.querySelector(".typing")) {
      const typing = document.createElement("p");
      typing.className = "typing";
      typing.setAttribute("aria-label", "The reply is being written");
      typing.textContent = "…";
      article.insertBefore(typing, article.querySelector(".meta"));
    }
    article.dataset.status = "streaming";
  }

  const source = new EventSource("/c/" + conversationID + "/events" +
    (chat.dataset.resume ? "?last_event_id=" + encodeURIComponent(chat.dataset.resume) : ""));

  source.addEventListener("start", (event) => {
    const data = JSON.parse(event.data);
    const wasAtBottom = nearBottom();
    startReply(messageArticle(data.message_id, "assistant"));
    setStreaming(true);
    showNotice("");
    followIfAtBottom(wasAtBottom);
  });

  source.addEventListener("token", (event) => {
    const data = JSON.parse(event.data);
    const article = messageArticle(data.message_id, "assistant");
    if (!article.querySelector(".committed")) startReply(article);
    const wasAtBottom = nearBottom();
    article.querySelector(".typing")?.remove();
    if (data.append) article.querySelector(".committed").insertAdjacentHTML("beforeend", data.append);
    const tail = article.querySelector(".tail");
    if (typeof data.tail === "string") tail.innerHTML = data.tail;
    else showPendingText(tail, data.text);
    decorateCode(article);
    followIfAtBottom(wasAtBottom);
  });

  source.addEventListener("error", (event) => {
    if (!event.data) return; // a connection error: EventSource reconnects by itself with Last-Event-ID
    const data = JSON.parse(event.data);
    const article = messageArticle(data.message_id, "assistant");
    const error = document.createElement("p");
    error.className = "error";
    error.setAttribute("role", "alert");
    error.textContent = data.message;
    article.insertBefore(error, article.querySelector(".meta"));
  });

  source.addEventListener("done", (event) => {
    const data = JSON.parse(event.data);
    const article = messageArticle(data.message_id, "assistant");
    const wasAtBottom = nearBottom();
    article.querySelector(".typing")?.remove();
    article.querySelector(".content").innerHTML = data.html;
    decorateCode(article);
    article.dataset.status = data.status;
    const meta = article.querySelector(".meta");
    meta.querySelector(".status")?.remove();
    if (data.status !== "complete") {
      const status = document.createElement("span");
      status.className = "status";
      status.textContent = data.status;
      meta.prepend(status);
    }
    setStreaming(false);
    followIfAtBottom(wasAtBottom);
  });

  composer.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = textarea.value;
    if (!text.trim()) return;
    if (streaming) {
      showNotice("A reply is still being written. Stop it first, or wait for it to finish.");
      return;
    }
    sendButton.disabled = true;
    const fields = new FormData(composer);
    try {
      const response = await post(composer.action, fields);
      if (response.status === 202) {
        const data = await response.json();
        if (data.message_id && !document.getElementById("m" + data.message_id)) {
          const article = messageArticle(data.message_id, "user");
          const paragraph = document.createElement("p");
          paragraph.className = "plain";
          paragraph.textContent = text;
          article.querySelector(".content").appendChild(paragraph);
          // The reply's `start` event may have arrived first: keep the question above its answer.
          const reply = document.getElementById("m" + data.assistant_message_id);
          if (reply) messages.insertBefore(article, reply);
        }
        textarea.value = "";
        autogrow(textarea);
        composer.querySelector('input[name="request_id"]').value = newRequestID();
        setStreaming(true);
        window.scrollTo(0, document.body.scrollHeight);
      } else {
        const body = await response.json().catch(() => null);
        showNotice(body?.error?.message ?? "The message could not be sent (HTTP " + response.status + ").");
        sendButton.disabled = streaming;
        if (response.status === 409) setStreaming(true);
      }
    } catch (error) {
      showNotice("The message could not be sent: the server is unreachable. Try again; it will not be sent twice.");
      sendButton.disabled = streaming;
    }
    textarea.focus();
  });

  stopForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    await post(stopForm.action, new FormData(stopForm)).catch(() => null);
  });

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && streaming) stopForm.requestSubmit();
  });

  autogrow(textarea);
  window.scrollTo(0, document.body.scrollHeight);
})();
