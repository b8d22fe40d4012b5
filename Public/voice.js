// Parley's opt-in extras, each off until the user turns it on under Settings → This browser (kept in this browser's
// localStorage), and offered only where the browser has the feature: a desktop notification when a reply finishes
// in a background tab, dictation into the message box (speech recognition), and "Read aloud" for replies (speech
// synthesis). app.js tells this file about finished messages and replies through `parley:*` events.
"use strict";

(function () {
  const Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
  const supported = {
    notify: "Notification" in window,
    dictate: typeof Recognition === "function",
    speak: "speechSynthesis" in window && typeof SpeechSynthesisUtterance === "function",
  };

  /** Whether the user turned `feature` on in this browser (and the browser has it). */
  function isOn(feature) {
    try {
      return supported[feature] && localStorage.getItem("parley." + feature) === "on";
    } catch {
      return false;
    }
  }

  /** The settings page: one checkbox per feature this browser has. */
  function wirePreferences(form) {
    const status = document.getElementById("browser-prefs-status");
    let any = false;
    for (const box of form.querySelectorAll("input[data-feature]")) {
      const feature = box.dataset.feature;
      box.closest("label").hidden = !supported[feature];
      any = any || supported[feature];
      box.checked = isOn(feature);
      box.addEventListener("change", async () => {
        if (box.checked && feature === "notify" && Notification.permission !== "granted" &&
            await Notification.requestPermission() !== "granted") {
          box.checked = false;
          status.textContent = "Notifications are blocked for this site in the browser's settings.";
          return;
        }
        try {
          localStorage.setItem("parley." + feature, box.checked ? "on" : "off");
          status.textContent = "Saved for this browser.";
        } catch {
          status.textContent = "This browser does not let Parley save settings.";
        }
      });
    }
    form.hidden = false;
    document.getElementById("browser-prefs-none").hidden = any;
  }

  /** A button for the composer that types what the user says into its text box. */
  function addDictation(composer) {
    const textarea = composer.querySelector("textarea");
    const submit = composer.querySelector("[type=submit]");
    if (!textarea || !submit) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "dictate";
    button.textContent = "Dictate";
    button.setAttribute("aria-pressed", "false");
    let recognition = null;
    button.addEventListener("click", () => {
      if (recognition) { recognition.stop(); return; }
      recognition = new Recognition();
      recognition.lang = document.documentElement.lang || navigator.language;
      recognition.interimResults = false;
      const before = textarea.value;
      recognition.addEventListener("result", (event) => {
        const said = [...event.results].map((result) => result[0].transcript).join(" ");
        textarea.value = (before ? before.replace(/\s*$/, " ") : "") + said.trim();
        textarea.dispatchEvent(new Event("input"));
      });
      recognition.addEventListener("end", () => {
        recognition = null;
        button.setAttribute("aria-pressed", "false");
        textarea.focus();
      });
      recognition.start();
      button.setAttribute("aria-pressed", "true");
    });
    submit.before(button);
  }

  /** A "Read aloud" button on a finished reply. */
  function addReadAloud(article) {
    const meta = article.querySelector(".meta");
    if (!article.classList.contains("assistant") || !meta || meta.querySelector("button.speak")) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "speak";
    button.textContent = "Read aloud";
    button.addEventListener("click", () => {
      const speaking = speechSynthesis.speaking;
      speechSynthesis.cancel();
      if (speaking && button.getAttribute("aria-pressed") === "true") return;
      document.querySelectorAll("button.speak").forEach((other) => other.setAttribute("aria-pressed", "false"));
      const utterance = new SpeechSynthesisUtterance(article.querySelector(".content").innerText);
      utterance.lang = document.documentElement.lang || navigator.language;
      utterance.addEventListener("end", () => button.setAttribute("aria-pressed", "false"));
      button.setAttribute("aria-pressed", "true");
      speechSynthesis.speak(utterance);
    });
    meta.appendChild(button);
  }

  const preferences = document.getElementById("browser-prefs");
  if (preferences) wirePreferences(preferences);

  if (isOn("dictate")) document.querySelectorAll("form.composer").forEach(addDictation);

  if (isOn("speak")) {
    document.querySelectorAll("article.message.assistant:not([data-status=streaming])").forEach(addReadAloud);
    document.addEventListener("parley:message", (event) => addReadAloud(event.detail));
  }

  if (isOn("notify")) {
    document.addEventListener("parley:reply-done", (event) => {
      if (!document.hidden || Notification.permission !== "granted") return;
      const { status, title } = event.detail;
      const notification = new Notification(title, {
        body: status === "complete" ? "The reply is ready." : "The reply ended: " + status + ".",
        tag: "parley-reply", icon: document.querySelector("link[rel=icon]")?.href,
      });
      notification.addEventListener("click", () => { window.focus(); notification.close(); });
    });
  }
})();
