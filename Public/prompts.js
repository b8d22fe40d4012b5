// The prompt library in the composer: typing "/" at the start of a message box lists the matching saved prompts (a
// listbox the box points into with aria-activedescendant); arrows move, Enter or Tab inserts, Escape closes. A prompt
// with {{variables}} first asks for them in a small form, one labelled field each. Without this script the prompts
// page's "Use" does the same.
"use strict";

(function () {
  /** A variable as the server reads one: 1 to 40 letters, digits, underscores or spaces between double braces. */
  const variable = /\{\{([A-Za-z0-9_ ]{1,40})\}\}/g;
  let instances = 0;

  /** `body` with each variable replaced by its value, in one pass (a value holding braces stays as written). */
  function fill(body, values) {
    return body.replace(variable, (written, name) => {
      const key = name.trim();
      return key && Object.hasOwn(values, key) ? values[key] : written;
    });
  }

  /** Wires one composer: its message box, a listbox of prompts under it, and the form for a prompt's variables. */
  function wire(form) {
    const textarea = form.querySelector("textarea");
    if (!textarea) return;
    const number = ++instances;
    const list = document.createElement("ul");
    list.id = "prompt-list-" + number;
    list.className = "prompt-picker";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Saved prompts");
    list.hidden = true;
    const status = document.createElement("p");
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    textarea.after(list, status);
    textarea.setAttribute("aria-autocomplete", "list");
    let prompts = [];
    let active = -1;
    let pending = null;
    let panel = null;

    /** Closes the list and forgets its choices. */
    function close() {
      list.hidden = true;
      list.replaceChildren();
      prompts = [];
      active = -1;
      textarea.removeAttribute("aria-activedescendant");
      textarea.removeAttribute("aria-controls");
    }

    /** Marks option `index` as the active one (the box keeps focus; the listbox shows and announces the choice). */
    function activate(index) {
      active = (index + prompts.length) % prompts.length;
      list.querySelectorAll("[role=option]").forEach((option, at) => {
        option.setAttribute("aria-selected", String(at === active));
        if (at === active) option.scrollIntoView({ block: "nearest" });
      });
      textarea.setAttribute("aria-activedescendant", list.id + "-" + active);
    }

    /** Shows the prompts found, the first one active; says so when none matches. */
    function show(found) {
      prompts = found;
      list.replaceChildren(...found.map((prompt, index) => {
        const option = document.createElement("li");
        option.id = list.id + "-" + index;
        option.setAttribute("role", "option");
        option.textContent = "/" + prompt.command + " — " + prompt.title;
        option.addEventListener("mousedown", (event) => { event.preventDefault(); choose(index); });
        return option;
      }));
      if (!found.length) {
        close();
        status.textContent = "No saved prompt matches.";
        return;
      }
      list.hidden = false;
      textarea.setAttribute("aria-controls", list.id);
      activate(0);
      status.textContent = found.length + (found.length === 1 ? " prompt" : " prompts") +
        ": up and down arrows to choose, Enter to insert, Escape to close.";
    }

    /** Looks the typed command up, when the box holds "/" and a command alone; closes the list otherwise. */
    async function lookUp() {
      const typed = /^\/([a-z0-9-]*)$/.exec(textarea.value);
      pending?.abort();
      if (!typed) { close(); return; }
      pending = new AbortController();
      try {
        const response = await fetch("/api/prompts?limit=8&q=" + encodeURIComponent(typed[1]), {
          headers: { "Accept": "application/json" }, credentials: "same-origin", signal: pending.signal,
        });
        if (!response.ok) { close(); return; }
        show((await response.json()).data);
      } catch (error) {
        if (error.name !== "AbortError") close();
      }
    }

    /** Puts `text` in the message box, ready to send or change. */
    function insert(text) {
      textarea.value = text;
      textarea.focus();
      textarea.setSelectionRange(text.length, text.length);
      textarea.dispatchEvent(new Event("input", { bubbles: true }));
    }

    /** Inserts prompt `index`, or asks for its variables first. */
    function choose(index) {
      const prompt = prompts[index];
      close();
      if (!prompt) return;
      if (prompt.variables.length) ask(prompt);
      else insert(prompt.body);
    }

    /** The form for a prompt's variables, in place of the list: one labelled field each, Insert and Cancel. */
    function ask(prompt) {
      panel?.remove();
      panel = document.createElement("div");
      panel.className = "prompt-fill";
      panel.setAttribute("role", "group");
      panel.setAttribute("aria-label", "Fill in /" + prompt.command);
      const heading = document.createElement("p");
      heading.className = "hint";
      heading.textContent = "Fill in /" + prompt.command + " (Enter inserts it, Escape cancels)";
      const fields = prompt.variables.map((name) => {
        const label = document.createElement("label");
        const input = document.createElement("input");
        input.type = "text";
        input.dataset.variable = name;
        input.required = true;
        label.append(name, " ", input);
        return label;
      });
      const buttons = document.createElement("div");
      buttons.className = "prompt-fill-actions";
      const done = button("Insert", "primary", () => complete(prompt));
      const cancel = button("Cancel", "", dismiss);
      buttons.append(done, cancel);
      panel.append(heading, ...fields, buttons);
      panel.addEventListener("keydown", (event) => {
        if (event.key === "Escape") { event.preventDefault(); dismiss(); }
        if (event.key === "Enter" && event.target.tagName === "INPUT") { event.preventDefault(); complete(prompt); }
        event.stopPropagation();
      });
      textarea.after(panel);
      panel.querySelector("input").focus();
    }

    /** A button of the variables' form that runs `action`. */
    function button(text, className, action) {
      const made = document.createElement("button");
      made.type = "button";
      made.textContent = text;
      made.className = className;
      made.addEventListener("click", action);
      return made;
    }

    /** Inserts the prompt filled with the form's values, once each has one; else marks the empty fields. */
    function complete(prompt) {
      const inputs = [...panel.querySelectorAll("input")];
      const empty = inputs.filter((input) => !input.value.trim());
      inputs.forEach((input) => input.setAttribute("aria-invalid", String(empty.includes(input))));
      if (empty.length) {
        status.textContent = "Fill in " + empty.map((input) => input.dataset.variable).join(", ") + ".";
        empty[0].focus();
        return;
      }
      const values = Object.fromEntries(inputs.map((input) => [input.dataset.variable, input.value]));
      dismiss();
      insert(fill(prompt.body, values));
    }

    /** Closes the variables' form, back to the message box. */
    function dismiss() {
      panel?.remove();
      panel = null;
      textarea.focus();
    }

    textarea.addEventListener("input", lookUp);
    // Leaving the box closes the list, unless the focus is back in it by then.
    textarea.addEventListener("blur", () => {
      setTimeout(() => { if (document.activeElement !== textarea) close(); }, 150);
    });
    // Before the composer's own keys (Enter sends): while the list is open, its keys are the list's.
    form.addEventListener("keydown", (event) => {
      if (event.target !== textarea || list.hidden || event.isComposing) return;
      const keys = {
        ArrowDown: () => activate(active + 1), ArrowUp: () => activate(active - 1),
        Enter: () => choose(active), Tab: () => choose(active), Escape: close,
      };
      if (!keys[event.key] || event.shiftKey) return;
      event.preventDefault();
      event.stopPropagation();
      keys[event.key]();
    }, true);
  }

  document.querySelectorAll("form.composer").forEach(wire);
})();
