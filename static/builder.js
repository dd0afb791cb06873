// Armybuilder: the builder without full page reloads. Every form on the page already
// works on its own (post, redirect); this script sends the same posts in the background
// with an X-Live header and swaps in the workspace the server renders back.
// (form.getAttribute("action"): the forms have a field named "action", which hides form.action.)
(function () {
  "use strict";
  const workspace = document.getElementById("workspace");
  if (!workspace || !window.fetch) return;
  let busy = Promise.resolve();

  function send(form, submitter) {
    const data = new FormData(form);
    if (submitter && submitter.name) data.append(submitter.name, submitter.value);
    const focusId = document.activeElement && document.activeElement.id;
    busy = busy.then(() =>
      fetch(form.getAttribute("action"), { method: "POST", body: data, headers: { "X-Live": "1" }, credentials: "same-origin" })
        .then((response) => response.text().then((html) => ({ response, html })))
        .then(({ response, html }) => {
          if (!(response.headers.get("Content-Type") || "").startsWith("text/html")) {
            window.location.reload();
            return;
          }
          workspace.innerHTML = html;
          const entry = data.get("entry");
          if (entry && data.get("action") !== "remove") {
            const url = new URL(window.location.href);
            url.searchParams.set("entry", entry);
            window.history.replaceState(null, "", url);
          }
          const again = focusId && document.getElementById(focusId);
          if (again) again.focus();
        })
        .catch(() => form.submit())
    );
    return busy;
  }

  workspace.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.matches("form[data-live]")) return;
    event.preventDefault();
    send(form, event.submitter);
  });

  workspace.addEventListener("change", (event) => {
    const field = event.target;
    const form = field.form;
    if (!form) return;
    if (field.matches("[data-autosubmit]") || form.matches("[data-autosubmit-form]")) {
      if (field.type === "number" && field.value === "") return;
      send(form, null);
    }
  });

  workspace.addEventListener("click", (event) => {
    const button = event.target.closest("[data-copy]");
    if (!button) return;
    const input = document.querySelector(button.dataset.copy);
    input.select();
    const done = () => { button.textContent = "Copied"; };
    if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, () => document.execCommand("copy") && done());
    else if (document.execCommand("copy")) done();
  });
})();
