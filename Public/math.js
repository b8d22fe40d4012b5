// Parley's formulas: the server marks each one as <code class="math math-inline"> or <code class="math
// math-display"> holding its TeX source; this typesets them with KaTeX (loaded from /static on the first page that
// has one), including those that arrive while a reply streams. Without JavaScript, or without KaTeX installed, the
// source stays readable in place.
"use strict";

(function () {
  const config = document.querySelector('meta[name="parley-katex"]');
  if (!config || !config.content) return;
  let loading = null;

  /** Loads KaTeX's script and style once. */
  function loadKaTeX() {
    loading ??= new Promise((resolve, reject) => {
      const style = document.createElement("link");
      style.rel = "stylesheet";
      style.href = config.dataset.style;
      document.head.append(style);
      const script = document.createElement("script");
      script.src = config.content;
      script.onload = resolve;
      script.onerror = reject;
      document.head.append(script);
    });
    return loading;
  }

  /** Replaces one formula's source with its typeset form; a ```math block is replaced whole, its tools with it. */
  function typeset(code) {
    if (!code.isConnected) return;
    const display = code.classList.contains("math-display");
    const formula = document.createElement("span");
    formula.className = "math " + (display ? "math-display" : "math-inline");
    formula.dataset.tex = code.textContent;
    katex.render(code.textContent, formula, { displayMode: display, throwOnError: false });
    const block = code.parentElement;
    (display && block.matches("pre") ? block : code).replaceWith(formula);
  }

  /** Typesets every formula in `nodes` and below them, loading KaTeX first when there is one. */
  function typesetWithin(nodes) {
    const formulas = [];
    for (const node of nodes) {
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      if (node.matches("code.math")) formulas.push(node);
      else formulas.push(...node.querySelectorAll("code.math"));
    }
    if (formulas.length === 0) return;
    loadKaTeX().then(() => formulas.forEach(typeset), () => {});
  }

  typesetWithin([document.body]);
  new MutationObserver((changes) => typesetWithin(changes.flatMap((change) => [...change.addedNodes])))
    .observe(document.body, { childList: true, subtree: true });
})();
