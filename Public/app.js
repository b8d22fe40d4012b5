// Parley's browser script: streaming replies over EventSource, Stop, a composer that sends without reloading,
// copy buttons, local times, the phone layout's conversation list, and the offline state. Every page works without
// it; this file only adds to the server-rendered HTML. offline.js and voice.js add the opt-in extras.
"use strict";

(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";

  // The conversation list is grouped by day in the reader's time zone: tell the server which it is, unless a zone
  // was chosen in Settings already.
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && /^[A-Za-z0-9_+\/-]+$/.test(zone) && !document.cookie.split("; ").some((c) => c.startsWith("parley_tz="))) {
    document.cookie = "parley_tz=" + zone + "; path=/; max-age=31536000; samesite=lax" +
      (location.protocol === "https:" ? "; secure" : "");
  }

  /** Posts a form's fields with the CSRF header, asking for JSON: URL-encoded, or with `multipart` (FormData fields)
   * as multipart/form-data, the only form in which the server reads a repeated field. */
  function post(url, fields, multipart = false) {
    const headers = { "Accept": "application/json", "X-CSRF-Token": csrf };
    if (!multipart) headers["Content-Type"] = "application/x-www-form-urlencoded";
    return fetch(url, {
      method: "POST", headers, body: multipart ? fields : new URLSearchParams(fields), credentials: "same-origin",
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

  /** Shows every <time> under `root` in the reader's time zone; the server's UTC text stays as the tooltip. */
  function localizeTimes(root) {
    for (const time of root.querySelectorAll("time[datetime]")) {
      const date = new Date(time.getAttribute("datetime"));
      if (isNaN(date)) continue;
      time.title = time.title || date.toISOString().replace("T", " ").slice(0, 16) + " UTC";
      time.textContent = time.getAttribute("datetime").length > 10 ? date.toLocaleString() : date.toLocaleDateString();
    }
  }

  /** A button that copies what `text()` returns and says whether that worked. */
  function copyButton(label, text) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", label);
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(text());
        button.textContent = "Copied";
      } catch {
        button.textContent = "Copy failed";
      }
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    });
    return button;
  }

  /** Adds a language label and a Copy button to every code block under `root` that has none yet. */
  function decorateCode(root) {
    for (const pre of root.querySelectorAll("pre:not([data-copy])")) {
      pre.dataset.copy = "";
      const language = /(?:^|\s)language-(\S+)/.exec(pre.querySelector("code")?.className ?? "");
      if (language) pre.dataset.lang = language[1];
      const tools = document.createElement("div");
      tools.className = "code-tools";
      // A block without <code> (a tool call's arguments or result) copies its own text, not the buttons' words.
      tools.append(wrapButton(pre), copyButton("Copy code" + (language ? " (" + language[1] + ")" : ""),
        () => pre.querySelector("code")?.innerText
          ?? [...pre.childNodes].filter((node) => node !== tools).map((node) => node.textContent).join("")));
      pre.appendChild(tools);
    }
  }

  /** A toggle that wraps a code block's long lines instead of scrolling them. */
  function wrapButton(pre) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "wrap";
    button.textContent = "Wrap";
    button.setAttribute("aria-pressed", "false");
    button.addEventListener("click", () => {
      button.setAttribute("aria-pressed", String(pre.classList.toggle("wrapped")));
    });
    return button;
  }

  /** Gives a finished message a Copy button for its whole text, and local times; tells voice.js it is there. */
  function decorateMessage(article) {
    localizeTimes(article);
    decorateCode(article);
    const meta = article.querySelector(".meta");
    if (!meta || meta.querySelector("button.copy")) return;
    const who = article.classList.contains("user") ? "your message" : "the reply";
    meta.appendChild(copyButton("Copy " + who, () => article.querySelector(".content").innerText.trim()));
    document.dispatchEvent(new CustomEvent("parley:message", { detail: article }));
  }

  /** Enter sends, Shift+Enter adds a line, and the box grows, for every composer. */
  function wireComposerKeys(form) {
    const textarea = form.querySelector("textarea");
    if (!textarea) return;
    textarea.addEventListener("input", () => autogrow(textarea));
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        if (textarea.value.trim()) form.requestSubmit();
      }
    });
    autogrow(textarea);
  }

  // On a phone-sized screen the conversation list starts folded (a <details>, so it works without script too).
  const sidebarList = document.getElementById("sidebar-list");
  if (sidebarList && window.matchMedia("(max-width: 720px)").matches) sidebarList.open = false;

  localizeTimes(document);
  decorateCode(document);
  document.querySelectorAll("article.message:not([data-status=streaming])").forEach(decorateMessage);
  document.querySelectorAll("form.composer").forEach(wireComposerKeys);

  // Offline (the browser says so, or the event stream cannot reach the server): a notice, and no sending.
  const offlineNotice = document.getElementById("offline-notice");
  let offline = !navigator.onLine;
  let streaming = false;

  /** Enables each composer's submit button unless offline, or (the chat's) while a reply streams or a chosen document
   * is still uploading or being read (documents.js). */
  function refreshSendButtons() {
    const documentsPending = window.parleyDocuments?.pending() ?? false;
    for (const button of document.querySelectorAll("form.composer [type=submit]")) {
      button.disabled = offline || ((streaming || documentsPending) && button.id === "send");
    }
  }
  document.addEventListener("parley:documents", refreshSendButtons);

  /** Shows or hides the offline notice and turns sending off or on. */
  function setOffline(on) {
    offline = on;
    document.documentElement.classList.toggle("offline", on);
    if (offlineNotice) offlineNotice.hidden = !on;
    refreshSendButtons();
  }

  window.addEventListener("online", () => setOffline(false));
  window.addEventListener("offline", () => setOffline(true));
  setOffline(offline);

  const chat = document.getElementById("chat");
  if (!chat) return;

  const conversationID = chat.dataset.conversation;
  const messages = document.getElementById("messages");
  const composer = document.getElementById("composer");
  const textarea = composer.querySelector("textarea");
  const stopForm = document.getElementById("stop-form");
  const notice = document.getElementById("notice");
  const title = document.querySelector(".chat-header h1")?.textContent ?? "Parley";
  streaming = stopForm && !stopForm.hidden;

  function setStreaming(on) {
    streaming = on;
    stopForm.hidden = !on;
    refreshSendButtons();
    const regenerate = document.getElementById("regenerate-form");
    if (regenerate) regenerate.hidden = on || !messages.querySelector("article.message.assistant");
    if (on) document.getElementById("continue-form").hidden = true;
  }

  function showNotice(text) {
    notice.textContent = text;
    notice.hidden = !text;
  }

  /** What scrolls the messages: their own column where the layout gives them one (a screen big enough), else the
   * page. */
  function scroller() {
    return /auto|scroll/.test(getComputedStyle(messages).overflowY) ? messages : document.scrollingElement;
  }

  function nearBottom() {
    const view = scroller();
    return view.scrollTop + view.clientHeight >= view.scrollHeight - 80;
  }

  function showLatest() {
    const view = scroller();
    view.scrollTop = view.scrollHeight;
  }

  // While a reply grows, the view follows it only for a reader at the bottom; anyone who scrolled up gets a
  // "Jump to latest" button instead (just above the reply controls), which brings the view (and the following) back.
  const jump = document.createElement("button");
  jump.type = "button";
  jump.className = "jump-latest";
  jump.textContent = "Jump to latest ↓";
  jump.hidden = true;
  jump.addEventListener("click", () => {
    showLatest();
    jump.hidden = true;
    textarea.focus({ preventScroll: true });
  });
  (composer.closest(".dock") ?? document.body).prepend(jump);
  // Scroll events of the messages column do not bubble: listen while they pass the document on their way down.
  let atBottom = true;
  document.addEventListener("scroll", () => {
    atBottom = nearBottom();
    if (atBottom) jump.hidden = true;
  }, { passive: true, capture: true });
  // A column that shrinks (the composer grows, the window gets smaller) keeps a reader at the bottom there.
  new ResizeObserver(() => { if (atBottom) showLatest(); }).observe(messages);
  // So does one whose images load after it was shown.
  messages.addEventListener("load", () => { if (atBottom) showLatest(); }, { capture: true });

  function followIfAtBottom(wasAtBottom) {
    if (wasAtBottom) showLatest();
    else jump.hidden = false;
  }

  /** Puts a control in a message's footer before its time, where the server's pages put it. */
  function addControl(article, control) {
    const meta = article.querySelector(".meta");
    meta.querySelector("time") ? meta.insertBefore(control, meta.querySelector("time")) : meta.append(control);
  }

  /** The Edit link of a question, as the server writes it. */
  function editLink(id) {
    const link = document.createElement("a");
    link.className = "edit";
    link.href = "/c/" + chat.dataset.conversation + "?edit=" + id + "#editor";
    link.textContent = "Edit";
    return link;
  }

  /** A message's button that submits one of the page's forms with its id, as the server writes it. */
  function formButton(form, id, label) {
    const button = document.createElement("button");
    button.type = "submit";
    button.className = "link";
    button.setAttribute("form", form);
    button.name = "message_id";
    button.value = id;
    button.textContent = label;
    return button;
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

  /** Shows raw text that came before its formatted tail, after the last text of the tail: inside its innermost last
   * element only when nothing but blank text follows that element (text after a bold word stays before the new text). */
  function showPendingText(tail, text) {
    let pending = tail.querySelector(".pending");
    if (!pending) {
      let block = tail;
      for (;;) {
        const last = [...block.childNodes].reverse().find((node) => node.nodeType === Node.ELEMENT_NODE
          ? !node.matches("button, input, img, br, hr") : node.textContent.trim() !== "");
        if (!last || last.nodeType !== Node.ELEMENT_NODE) break;
        block = last;
      }
      pending = document.createElement("span");
      pending.className = "pending";
      block.appendChild(pending);
    }
    pending.textContent += text;
  }

  /** Resets a reply's content to a committed part and a replaceable tail. While it streams the article is busy,
   * so a screen reader announces the reply once, when it is complete, instead of every fragment. */
  function startReply(article) {
    const content = article.querySelector(".content");
    content.innerHTML = '<div class="committed"></div><div class="tail"></div>';
    article.querySelector("details.reasoning")?.remove(); // the stream sends the reasoning again
    article.querySelector(".error")?.remove();
    if (!article.querySelector(".typing")) {
      const typing = document.createElement("p");
      typing.className = "typing";
      typing.setAttribute("aria-label", "The reply is being written");
      typing.textContent = "…";
      article.insertBefore(typing, article.querySelector(".meta"));
    }
    article.dataset.status = "streaming";
    article.setAttribute("aria-busy", "true");
  }

  /** A reply's reasoning section, made at its first reasoning text: collapsed, its summary counting the seconds
   * ("Thinking… 12 s") until the answer starts; opening it shows the reasoning as it grows. */
  function reasoningSection(article) {
    let section = article.querySelector("details.reasoning");
    if (section) return section;
    section = document.createElement("details");
    section.className = "reasoning";
    section.innerHTML = '<summary></summary><div class="reasoning-text"></div>';
    article.querySelector(".content").before(section);
    const started = Number(article.dataset.startedAt || Date.now());
    const summary = section.querySelector("summary");
    const count = () => { summary.textContent = "Thinking… " + Math.round((Date.now() - started) / 1000) + " s"; };
    count();
    section.dataset.startedAt = String(started);
    thinkingClocks.set(section, setInterval(count, 1000));
    return section;
  }

  /** The collapsed row of a tool call in a streaming reply, as the server writes it (`ToolStepsView`): the tool and
   *  how the call goes, opening on its arguments (and its result, once it comes); text only, never markup. */
  function toolRow(article, callID, tool, args) {
    let list = article.querySelector(".tool-steps");
    if (!list) {
      list = document.createElement("div");
      list.className = "tool-steps";
      article.querySelector(".content").before(list);
    }
    const row = document.createElement("details");
    row.className = "tool-call";
    row.dataset.callId = callID;
    row.dataset.status = "running";
    const summary = document.createElement("summary");
    const name = document.createElement("span");
    name.className = "tool-name";
    name.textContent = tool;
    const status = document.createElement("span");
    status.className = "tool-status";
    status.textContent = "running…";
    summary.append(name, " ", status);
    const argumentsBlock = document.createElement("pre");
    argumentsBlock.className = "tool-arguments";
    argumentsBlock.textContent = args;
    row.append(summary, argumentsBlock);
    list.append(row);
    return row;
  }

  /** Shows how a tool call ended (`ok`, `failed`, `denied` or `stopped`) in its row, worded as the server's page
   *  words it; an answer given elsewhere (another tab, the API) ends the wait here too. */
  function showToolOutcome(row, outcome) {
    row.dataset.status = outcome;
    row.querySelector(".tool-status").textContent = outcome === "ok" ? "done" : outcome;
    row.querySelector(".tool-decision")?.remove();
  }

  /** Allow and Deny for a call waiting for permission, as the server writes them: buttons of the page's
   *  `tool-decision-form`, which posts the answer (the page then reloads on the running reply). */
  function decisionButtons(callID) {
    const conversation = location.pathname.split("/")[2];
    const buttons = document.createElement("p");
    buttons.className = "tool-decision";
    for (const [value, label] of [["allow", "Allow"], ["deny", "Deny"]]) {
      const button = document.createElement("button");
      button.type = "submit";
      button.setAttribute("form", "tool-decision-form");
      button.formAction = "/c/" + conversation + "/tools/" + encodeURIComponent(callID);
      button.name = "decision";
      button.value = value;
      button.textContent = label;
      if (value === "allow") button.className = "primary";
      buttons.append(button, " ");
    }
    return buttons;
  }

  /** Ends a reply's thinking once its answer starts (or it ends): the section closes and says how long it took. */
  function endThinking(article) {
    const section = article.querySelector("details.reasoning[data-started-at]");
    if (!section) return;
    clearInterval(thinkingClocks.get(section));
    thinkingClocks.delete(section);
    section.querySelector("summary").textContent = thoughtFor(Date.now() - Number(section.dataset.startedAt));
    delete section.dataset.startedAt;
    section.open = false;
  }

  /** "Thought for N s", N the whole seconds of `ms` rounded, at least 1 (as the server writes it). */
  function thoughtFor(ms) {
    return "Thought for " + Math.max(1, Math.round(ms / 1000)) + " s";
  }

  const thinkingClocks = new Map();

  document.querySelectorAll("article.message[data-status=streaming]").forEach((article) => article.setAttribute("aria-busy", "true"));

  const source = new EventSource("/c/" + conversationID + "/events" +
    (chat.dataset.resume ? "?last_event_id=" + encodeURIComponent(chat.dataset.resume) : ""));

  // A lost stream reconnects by itself within a second or so; one still down after two means the server is out of reach.
  let unreachable = null;
  source.addEventListener("open", () => {
    clearTimeout(unreachable);
    if (navigator.onLine) setOffline(false);
  });

  /** The reply's footer names its model, as the server's page does. */
  function showModel(article, model) {
    const meta = article.querySelector(".meta");
    if (!model || meta.querySelector(".tag")) return;
    const tag = document.createElement("span");
    tag.className = "tag";
    tag.textContent = model;
    tag.title = model;
    meta.prepend(tag);
  }

  /** A finished reply's token counts, worded as the server's page words them. */
  function usageText(usage) {
    if (!usage.prompt_tokens && !usage.completion_tokens) return "nothing billed";
    return usage.prompt_tokens + " in · " + usage.completion_tokens + " out" + (usage.estimated ? " (estimated)" : "");
  }

  /** Whether an event belongs to a reply running in a branch this page does not show (its `done` still ends the
   * streaming state: Stop works from any branch). */
  function inOtherBranch(messageID) {
    return String(messageID) === chat.dataset.elsewhere;
  }

  // A running reply's `token` and `reasoning` events leave out `message_id`: they belong to the reply this stream
  // named last (its `start`, or on a stream that joins mid-reply its first event).
  let namedReply = null;

  /** The reply an event belongs to: the one it names, else the one the stream named last. */
  function replyOf(data) {
    if (data.message_id !== undefined) namedReply = data.message_id;
    return namedReply;
  }

  source.addEventListener("start", (event) => {
    const data = JSON.parse(event.data);
    const replyID = replyOf(data);
    if (inOtherBranch(replyID)) return;
    const wasAtBottom = nearBottom();
    const article = messageArticle(replyID, "assistant");
    startReply(article);
    article.dataset.startedAt = String(Date.now());
    showModel(article, data.model);
    setStreaming(true);
    showNotice("");
    followIfAtBottom(wasAtBottom);
  });

  /** The article of the running reply a `token` or `reasoning` event belongs to, ready for streamed content; null
   * for a reply in another branch. */
  function streamingArticle(data) {
    const replyID = replyOf(data);
    if (inOtherBranch(replyID)) return null;
    const article = messageArticle(replyID, "assistant");
    if (!article.querySelector(".committed")) startReply(article);
    return article;
  }

  source.addEventListener("token", (event) => {
    const data = JSON.parse(event.data);
    const article = streamingArticle(data);
    if (!article) return;
    const wasAtBottom = nearBottom();
    article.querySelector(".typing")?.remove();
    endThinking(article);
    if (data.append) article.querySelector(".committed").insertAdjacentHTML("beforeend", data.append);
    const tail = article.querySelector(".tail");
    if (typeof data.tail === "string") tail.innerHTML = data.tail;
    else if (data.text) showPendingText(tail, data.text);
    decorateCode(article);
    followIfAtBottom(wasAtBottom);
  });

  source.addEventListener("tool_call", (event) => {
    const data = JSON.parse(event.data);
    const article = streamingArticle(data);
    if (!article) return;
    const wasAtBottom = nearBottom();
    const row = article.querySelector(`details.tool-call[data-call-id="${CSS.escape(data.call_id)}"]`)
      ?? toolRow(article, data.call_id, data.tool, data.arguments);
    if (!["running", "awaiting"].includes(row.dataset.status)) return; // a replayed call that has ended since
    row.querySelector(".tool-decision")?.remove();
    row.dataset.status = data.awaiting_confirmation ? "awaiting" : "running";
    row.querySelector(".tool-status").textContent = data.awaiting_confirmation ? "waiting for your answer" : "running…";
    if (data.awaiting_confirmation) {
      row.open = true;
      row.append(decisionButtons(data.call_id));
    }
    followIfAtBottom(wasAtBottom);
  });

  source.addEventListener("tool_result", (event) => {
    const data = JSON.parse(event.data);
    const article = streamingArticle(data);
    if (!article) return;
    // A page loaded after the call was announced draws its row now.
    const row = article.querySelector(`details.tool-call[data-call-id="${CSS.escape(data.call_id)}"]`)
      ?? toolRow(article, data.call_id, data.tool, "");
    showToolOutcome(row, data.status ?? (data.ok ? "ok" : "failed"));
    if (data.status === "stopped") return;
    let result = row.querySelector(".tool-result");
    if (!result) {
      result = document.createElement("pre");
      result.className = "tool-result";
      row.append(result);
    }
    // A replayed result leaves the fuller one the page was drawn with.
    if (!result.textContent) result.textContent = data.summary;
  });

  source.addEventListener("reasoning", (event) => {
    const data = JSON.parse(event.data);
    const article = streamingArticle(data);
    if (!article) return;
    const wasAtBottom = nearBottom();
    reasoningSection(article).querySelector(".reasoning-text").append(data.text);
    followIfAtBottom(wasAtBottom);
  });

  source.addEventListener("error", (event) => {
    if (!event.data && source.readyState === EventSource.CLOSED) { // refused (say 429, too many streams): no reconnecting
      showNotice("Live updates stopped in this tab: the server refused them (too many open conversations?). Reload to try again.");
      return;
    }
    if (!event.data) { // a connection error: EventSource reconnects by itself with Last-Event-ID
      clearTimeout(unreachable);
      unreachable = setTimeout(() => { if (source.readyState !== EventSource.OPEN) setOffline(true); }, 2000);
      return;
    }
    const data = JSON.parse(event.data);
    if (inOtherBranch(data.message_id)) return;
    const article = messageArticle(data.message_id, "assistant");
    const error = document.createElement("p");
    error.className = "error";
    error.setAttribute("role", "alert");
    error.textContent = data.message;
    article.insertBefore(error, article.querySelector(".meta"));
  });

  // A new title (the first words, the model's own, or a rename elsewhere) reaches the heading, the tab and the list.
  source.addEventListener("title", (event) => {
    const data = JSON.parse(event.data);
    if (String(data.conversation_id) !== chat.dataset.conversation) return;
    const heading = document.querySelector(".chat-header h1");
    if (heading) heading.textContent = data.title;
    document.title = data.title + " · Parley";
    const listed = document.querySelector('.sidebar li[aria-current="page"] a');
    if (listed) listed.textContent = data.title;
  });

  /** Lists a reply's sources under it, as the server's page does: "[1] report.pdf, page 7", each a link to its
   * document (at that page), opened in a new tab. */
  function showSources(article, sources) {
    article.querySelector("ol.sources")?.remove();
    if (!sources?.length) return;
    const list = document.createElement("ol");
    list.className = "sources";
    list.setAttribute("aria-label", "Sources");
    for (const source of sources) {
      const link = document.createElement("a");
      link.href = source.url;
      link.target = "_blank";
      link.rel = "noopener";
      link.textContent = "[" + source.number + "] " + source.name + (source.page ? ", page " + source.page : "");
      const item = document.createElement("li");
      item.appendChild(link);
      list.appendChild(item);
    }
    article.insertBefore(list, article.querySelector(".meta"));
  }

  source.addEventListener("done", (event) => {
    const data = JSON.parse(event.data);
    if (inOtherBranch(data.message_id)) {
      chat.dataset.elsewhere = "";
      setStreaming(false);
      return;
    }
    const article = messageArticle(data.message_id, "assistant");
    const wasAtBottom = nearBottom();
    article.querySelector(".typing")?.remove();
    endThinking(article);
    // The server's figure for the thinking time replaces the page's own, so that a reload says the same.
    const reasoningSummary = article.querySelector("details.reasoning summary");
    if (reasoningSummary && typeof data.reasoning_ms === "number") reasoningSummary.textContent = thoughtFor(data.reasoning_ms);
    article.querySelector(".content").innerHTML = data.html;
    // A call still shown as running or waiting when its reply ended was cut short by the end.
    article.querySelectorAll('details.tool-call[data-status="running"], details.tool-call[data-status="awaiting"]')
      .forEach((row) => showToolOutcome(row, "stopped"));
    showSources(article, data.sources);
    article.dataset.status = data.status;
    article.removeAttribute("aria-busy");
    const meta = article.querySelector(".meta");
    meta.querySelector(".status")?.remove();
    if (data.status !== "complete") {
      const status = document.createElement("span");
      status.className = "status";
      status.textContent = data.status;
      meta.querySelector(".tag") ? meta.querySelector(".tag").after(status) : meta.prepend(status);
    }
    meta.querySelector(".usage")?.remove();
    if (data.usage) {
      const usage = document.createElement("span");
      usage.className = "usage";
      usage.textContent = usageText(data.usage);
      meta.querySelector("time") ? meta.insertBefore(usage, meta.querySelector("time")) : meta.append(usage);
    }
    if (!meta.querySelector("button[form=regenerate-form]")) {
      addControl(article, formButton("regenerate-form", data.message_id, "Regenerate"));
      addControl(article, formButton("delete-message-form", data.message_id, "Delete"));
    }
    decorateMessage(article);
    setStreaming(false);
    // A reply cut at the model's output limit can be continued.
    document.getElementById("continue-form").hidden = data.status !== "truncated";
    followIfAtBottom(wasAtBottom);
    document.dispatchEvent(new CustomEvent("parley:reply-done", { detail: { article, status: data.status, title } }));
  });

  composer.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = textarea.value;
    if (!text.trim() || offline) return;
    if (streaming) {
      showNotice("A reply is still being written. Stop it first, or wait for it to finish.");
      return;
    }
    if (window.parleyDocuments?.pending()) return; // Send waits, and says so, until the documents are read
    const sendButton = document.getElementById("send");
    sendButton.disabled = true;
    const fields = new FormData(composer);
    fields.delete("image");  // the file input; attachments.js sends images as multipart
    try {
      // With images, attachments.js uploads the form as multipart with a progress bar; documents, uploaded already,
      // go as their repeated `document_id` field.
      const uploads = window.parleyAttachments;
      if (uploads?.blocked()) { refreshSendButtons(); return; }
      const response = uploads?.count() ? await uploads.send(composer.action)
        : await post(composer.action, fields, fields.has("document_id"));
      if (response.status === 202) {
        const data = await response.json();
        if (data.message_id && !document.getElementById("m" + data.message_id)) {
          const article = messageArticle(data.message_id, "user");
          const paragraph = document.createElement("p");
          paragraph.className = "plain";
          paragraph.textContent = text;
          article.querySelector(".content").appendChild(paragraph);
          uploads?.moveInto(article);
          window.parleyDocuments?.moveInto(article);
          addControl(article, editLink(data.message_id));
          addControl(article, formButton("delete-message-form", data.message_id, "Delete"));
          // The reply's `start` event may have arrived first: keep the question above its answer.
          const reply = document.getElementById("m" + data.assistant_message_id);
          if (reply) messages.insertBefore(article, reply);
          decorateMessage(article);
        }
        textarea.value = "";
        uploads?.moveInto(null);
        window.parleyDocuments?.moveInto(null);
        autogrow(textarea);
        composer.querySelector('input[name="request_id"]').value = newRequestID();
        setStreaming(true);
        showLatest();
      } else {
        const body = await response.json().catch(() => null);
        showNotice(body?.error?.message ?? "The message could not be sent (HTTP " + response.status + ").");
        if (response.status === 409) setStreaming(true);
        refreshSendButtons();
      }
    } catch (error) {
      showNotice("The message could not be sent: the server is unreachable. Try again; it will not be sent twice.");
      refreshSendButtons();
    }
    textarea.focus();
  });

  stopForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    await post(stopForm.action, new FormData(stopForm)).catch(() => null);
    textarea.focus();
  });

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && streaming && !event.defaultPrevented) stopForm.requestSubmit();
  });

  /** Shows the conversation's current branch as the server has it now, without reloading the page; false when it
   * could not be read. */
  async function showCurrentBranch() {
    // A reply streaming meanwhile is followed from its start by the page's own resume: load the page again.
    if (streaming) {
      location.reload();
      return true;
    }
    const page = await fetch(location.pathname, { credentials: "same-origin" }).catch(() => null);
    const fresh = page?.ok
      ? new DOMParser().parseFromString(await page.text(), "text/html").getElementById("messages") : null;
    if (!fresh) return false;
    messages.replaceChildren(...fresh.childNodes);
    messages.querySelectorAll("article.message:not([data-status=streaming])").forEach(decorateMessage);
    return true;
  }

  // Walking a message's versions (◀ ▶) stores the choice, then shows the chosen branch.
  const versionForm = document.getElementById("version-form");
  versionForm?.addEventListener("submit", async (event) => {
    const messageID = event.submitter?.value;
    if (!messageID) return;
    event.preventDefault();
    const chosen = await post(versionForm.action, { message_id: messageID }).catch(() => null);
    if (!chosen?.ok || !await showCurrentBranch()) {
      showNotice("That version could not be shown. Reload the page to try again.");
      return;
    }
    document.getElementById("m" + messageID)?.querySelector(".versions button:not([disabled])")?.focus();
  });

  // Deleting a message asks first, then shows what is left.
  const deleteForm = document.getElementById("delete-message-form");
  deleteForm?.addEventListener("submit", async (event) => {
    const messageID = event.submitter?.value;
    if (!messageID) return;
    event.preventDefault();
    if (!confirm("Delete this message and everything after it, in every version? This cannot be undone.")) return;
    const deleted = await post(deleteForm.action, { message_id: messageID, confirm: "1" }).catch(() => null);
    if (!deleted?.ok || !await showCurrentBranch()) showNotice("The message could not be deleted. Reload the page.");
  });

  setStreaming(streaming);
  // The list scrolls on its own: show the open conversation in it; then the message or editor the address names
  // (a search hit, an edit, a version chosen without script), else the latest message.
  document.querySelector(".sidebar li[aria-current]")?.scrollIntoView({ block: "nearest" });
  const named = /^#(m\d+|editor|confirm-delete)$/.test(location.hash) ? document.getElementById(location.hash.slice(1)) : null;
  if (named) {
    atBottom = false;
    named.scrollIntoView({ block: "center" });
  } else {
    showLatest();
  }
})();
