// The print choices (templates/_print_choices.html): the paper of the reader's region
// when they have not chosen one, and their own choices kept in this browser for the next
// list. The form works without this script: the server preselects the paper from the
// Accept-Language header, by the same rule (armybuilder/web/printing.py).
(function () {
  "use strict";
  const KEY = "armybuilder.print";
  const LETTER = new Set("BZ CA CL CO CR GT MX NI PA PH PR SV US VE".split(" "));  // CLDR US-Letter

  // The region of the most wanted language ("en-US", or "fr" then "fr-CA"); none for "fr, en-US".
  function regionPaper() {
    const tags = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ""])
      .map((tag) => String(tag).toLowerCase().split("-"));
    const language = tags[0][0];
    for (const subtags of tags) {
      const region = subtags.slice(1).find((s) => /^[a-z]{2}$/.test(s));
      if (subtags[0] === language && region) return LETTER.has(region.toUpperCase()) ? "letter" : "a4";
    }
    return null;
  }

  function saved() {
    try {
      return JSON.parse(window.localStorage.getItem(KEY) || "null");
    } catch (error) {
      return null;
    }
  }

  function restore(form) {
    form.dataset.printRestored = "1";
    const choices = saved() || { paper: regionPaper() };
    for (const [name, value] of Object.entries(choices)) {
      for (const field of form.querySelectorAll(`input[name="${name}"]`)) {
        if (field.type === "radio" && value) field.checked = field.value === value;
        if (field.type === "checkbox") field.checked = value === true;
      }
    }
  }

  function restoreAll() {
    document.querySelectorAll("form[data-print-choices]:not([data-print-restored])").forEach(restore);
  }

  document.addEventListener("change", (event) => {
    const form = event.target.closest("form[data-print-choices]");
    if (!form) return;
    const data = new FormData(form);
    const choices = { paper: data.get("paper"), layout: data.get("layout"), combine: data.has("combine"), rules: data.has("rules"),
      trackers: data.has("trackers") };
    try {
      window.localStorage.setItem(KEY, JSON.stringify(choices));
    } catch (error) {
      // Storage refused (private browsing): the choice holds for this page only.
    }
  });
  restoreAll();
  // The builder draws its workspace again after each change: the form comes back as the server made it.
  new MutationObserver(restoreAll).observe(document.body, { childList: true, subtree: true });
})();
