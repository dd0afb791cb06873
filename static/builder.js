// Armybuilder: the builder without full page reloads. Every form on the page already works on its own (post,
// redirect); this script sends the same posts in the background with an X-Live header and swaps in the pieces of the
// workspace that changed.
// - The page reports the pieces it holds (X-Pieces: their hashes); the answer lists every piece in order with the html
//   of those the page lacks (web/fragments.py). Pieces come without the CSRF token and the version: filled in here.
// - Changes go one at a time, in order, each based on the list version the previous answer gave (X-List-Version), so
//   the page's own quick clicks never conflict; only a change made elsewhere (another tab) is refused, and the
//   server's message says so.
// - An upgrade change sends only what was touched ("partial"): a second "+" before the first has come back adds one
//   more to what the list has, rather than repeating it.
// - After each swap the focus goes back to the same control (or the one that took its place), at the same height on
//   screen, so the page does not jump. Each change is said in one polite sentence (#announce).
// - A swap waits while a button is held down: between a press and its release it would take the button (and the click).
// - While a change is on its way the workspace carries aria-busy="true".
// (form.getAttribute("action"): the forms have a field named "action", which hides form.action.)
(function () {
  "use strict";
  const workspace = document.getElementById("workspace");
  if (!workspace || !window.fetch) return;
  let queue = Promise.resolve();
  let version = currentVersion();
  let pieces = workspace.dataset.pieces || "";
  const token = document.querySelector("meta[name=csrf-token]").content;

  function currentVersion() {
    const totals = workspace.querySelector("[data-version]");
    return totals ? totals.dataset.version : null;
  }

  // The controls shown. Those in a closed <details> are skipped before their layout is asked for: Chromium lays out a
  // closed one's contents anew for each such question (some 60 ms for the rules of a 50-entry list).
  function focusables() {
    return Array.from(workspace.querySelectorAll("a[href], button, input, select, textarea")).filter(
      (el) => !el.disabled && el.type !== "hidden" && !el.closest("details:not([open])") && el.offsetParent !== null
    );
  }

  // Where the focus is now: its id, its place among the controls, its height on screen.
  function focusMark() {
    const active = document.activeElement;
    if (!active || !workspace.contains(active)) return null;
    return { element: active, id: active.id, index: focusables().indexOf(active), top: active.getBoundingClientRect().top };
  }

  function restoreFocus(mark) {
    if (!mark) return;
    let target = mark.element.isConnected ? mark.element : mark.id && document.getElementById(mark.id);
    if (!target || target.disabled) {
      const all = focusables();
      target = all[Math.min(Math.max(mark.index, 0), all.length - 1)];
    }
    if (!target) return;
    target.focus({ preventScroll: true });
    window.scrollBy(0, target.getBoundingClientRect().top - mark.top);
  }

  function fresh(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    return template.content.firstElementChild;
  }

  // The slots that changed, replaced; the entries the page keeps, left where they are unless the answer's order moves
  // them; the others dropped or put in their place; then the pieces inside kept entries (a hero's menu of units to
  // join) that changed.
  function place(answer) {
    const swapIn = ([id]) => id in answer.html && document.getElementById(id).replaceWith(fresh(answer.html[id]));
    answer.slots.forEach(swapIn);
    const list = document.getElementById("entries");
    const kept = new Set(answer.entries.filter(([id]) => !(id in answer.html)).map(([id]) => id));
    for (const node of Array.from(list.children)) if (!kept.has(node.id)) node.remove();
    let at = list.firstElementChild;
    for (const [id] of answer.entries) {
      const node = kept.has(id) ? document.getElementById(id) : fresh(answer.html[id]);
      if (node === at) at = at.nextElementSibling;
      else list.insertBefore(node, at);
    }
    answer.inner.forEach(swapIn);
    pieces = answer.slots.concat(answer.entries, answer.inner).map(([, hash]) => hash).join(" ");
  }

  function swap(answer, mark) {
    // A unit profile the player had open stays open.
    const open = Array.from(workspace.querySelectorAll("details[id][open]"), (d) => d.id);
    place(answer);
    for (const id of open) {
      const details = document.getElementById(id);
      if (details) details.open = true;
    }
    version = currentVersion() || version;
    for (const input of workspace.querySelectorAll("input[name=csrfmiddlewaretoken][value='']")) input.value = token;
    for (const input of workspace.querySelectorAll("input[name=version]")) input.value = version;
    restoreFocus(mark);
    filterUnits(); // a new list of units to add keeps the search typed
    measureBar();
  }

  // -- an answer that is not the workspace --------------------------------------------------------------------------
  // The workspace comes with X-List-Version (also when a change is refused: 400, 409). Anything else (the list deleted
  // in another tab, a lost session, a server error) is said in the message area, with the error page's ways on; nothing
  // of it is pasted.
  function showTrouble(status, html) {
    const answer = new DOMParser().parseFromString(html, "text/html");
    const words = answer.querySelector("[data-error-words]");
    const note = document.createElement("li");
    note.className = "error";
    note.textContent = status === 404 ? "This list is no longer among yours: it may have been deleted in another tab, or you logged out there."
      : "That change was not made: " + (words ? words.textContent : "the site answered " + status + ".");
    const way = answer.querySelector("[data-way-on]");
    if (way) note.append(" ", ...document.importNode(way, true).childNodes);
    let area = workspace.querySelector(".messages");
    if (!area) area = workspace.insertBefore(document.createElement("ul"), workspace.firstChild);
    area.className = "messages";
    area.setAttribute("aria-live", "assertive");
    area.replaceChildren(note);
    area.scrollIntoView({ block: "nearest" });
  }

  let held = null; // while a pointer or a key is down: settles when it is released
  let release = null;
  function hold() {
    if (!held) held = new Promise((done) => { release = done; });
  }
  function letGo() {
    if (!release) return;
    const done = release;
    held = release = null;
    setTimeout(done); // after the click that the release makes
  }
  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, hold, true);
  for (const type of ["pointerup", "pointercancel", "keyup"]) document.addEventListener(type, letGo, true);
  window.addEventListener("blur", letGo);

  // While changes are on their way the workspace says so (aria-busy), and stops saying it once the last is shown.
  let pending = 0;
  function busy(more) {
    pending += more;
    if (pending) workspace.setAttribute("aria-busy", "true");
    else workspace.removeAttribute("aria-busy");
  }

  // One request after another; `build` makes the body in its turn, to carry the version the previous answer left.
  function enqueue(url, build, after) {
    busy(1);
    queue = queue.then(() => {
      const mark = focusMark();
      const body = build && build();
      if (body) body.set("version", version);
      const init = { method: body ? "POST" : "GET", body, headers: { "X-Live": "1", "X-Pieces": pieces }, credentials: "same-origin" };
      return fetch(url, init)
        .then((response) => response.text().then((text) => ({ response, text })))
        .then(function afterRelease(answer) { return held ? held.then(() => afterRelease(answer)) : answer; })
        .then(({ response, text }) => {
          if (!response.headers.has("X-List-Version")) return showTrouble(response.status, text);
          if (!(response.headers.get("Content-Type") || "").startsWith("application/json")) return window.location.reload();
          version = response.headers.get("X-List-Version");
          swap(JSON.parse(text), focusMark() || mark);
          if (after) after();
        });
    }).catch(() => window.location.reload()).finally(() => busy(-1));
    return queue;
  }

  function keepEntryInUrl(entry) {
    const url = new URL(window.location.href);
    if (entry) url.searchParams.set("entry", entry);
    else url.searchParams.delete("entry");
    url.hash = entry ? "entry-" + entry : "";
    window.history.replaceState(null, "", url);
  }

  // Each change said in the polite live region (#announce): what was done, the total, legal or not, and the first issue
  // that was not there before.
  const issueTexts = () => Array.from(workspace.querySelectorAll("#issues li"), (li) => li.textContent.trim().split("\n")[0]);
  const said = (id) => document.getElementById(id).textContent.replace(/[✔✘]/, "").replace("/", " of ").trim();
  let issuesSaid = issueTexts();
  function announce(what) {
    const news = issueTexts().filter((text) => !issuesSaid.includes(text));
    issuesSaid = issueTexts();
    const issue = news.length ? ` New issue: ${news[0]}` : "";
    document.getElementById("announce").textContent = `${what}${said("points")}, ${said("status")}.${issue}`;
  }
  const DONE = { add: "Added", duplicate: "Duplicated", remove: "Removed" };

  // -- adding units ----------------------------------------------------------------------------------------------------
  // On a phone the units to add are a panel over the foot of the screen (app.css), opened once from the totals bar and
  // left open while the player adds; the list stays in view above it. On a desktop they are a column of their own.
  const root = document.documentElement;
  const opener = () => document.querySelector(".totals .open-adding");
  function setAdding(open) {
    root.classList.toggle("adding", open);
    for (const button of document.querySelectorAll(".open-adding")) button.setAttribute("aria-expanded", String(open));
    if (open) document.getElementById("units-panel").focus({ preventScroll: true });
    measureBar();
  }
  function closeAdding() {
    setAdding(false);
    if (opener()) opener().focus({ preventScroll: true });
  }
  document.addEventListener("click", (event) => {
    if (event.target.closest(".open-adding")) setAdding(!root.classList.contains("adding"));
    else if (event.target.closest(".close-adding")) closeAdding();
    else if (event.target.closest('a[href="#units-panel"]') && opener() && opener().offsetParent !== null) {
      setAdding(true); // a skip link to the units to add opens their panel
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && root.classList.contains("adding") && event.target.closest("#units-panel")) closeAdding();
  });

  // The search over the book's units: every word typed is found in a unit's name, type (its group), rules or weapons.
  function filterUnits() {
    const search = document.getElementById("unit-search");
    const words = search ? search.value.toLowerCase().split(/\s+/).filter(Boolean) : [];
    let found = 0;
    for (const heading of document.querySelectorAll("#units h3")) {
      const list = heading.nextElementSibling;
      let shown = 0;
      for (const item of list.children) {
        const text = (heading.textContent + " " + item.textContent).toLowerCase();
        item.hidden = !words.every((word) => text.includes(word));
        if (!item.hidden) shown += 1;
      }
      heading.hidden = list.hidden = shown === 0;
      found += shown;
    }
    const none = document.getElementById("no-match");
    if (none) none.hidden = found > 0;
  }
  workspace.addEventListener("input", (event) => {
    if (event.target.id === "unit-search") filterUnits();
  });

  // The sticky totals bar never covers what the page scrolls to: its height is the page's scroll padding (app.css).
  function measureBar() {
    const bar = workspace.querySelector(".totals");
    if (bar) root.style.setProperty("--bar", bar.offsetHeight + "px");
  }
  window.addEventListener("resize", measureBar);
  measureBar();

  const entryIds = () => Array.from(document.querySelectorAll("#entries > article.entry"), (node) => node.id);

  // A unit's Upgrades button takes the focus, its unit in view (below the totals bar, above the adding panel).
  function focusUnit(id, block) {
    const unit = document.getElementById(id);
    if (!unit) return;
    const button = document.getElementById("upgrades-" + id.replace(/^entry-/, "")) || unit.querySelector("a, button");
    if (button) button.focus({ preventScroll: true });
    unit.scrollIntoView({ block: block || "nearest" });
  }

  // After an Add: the new unit in view with the focus on its Upgrades, and a line in the panel that says it was added,
  // its upgrades and an undo a tap away.
  function field(name, value) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    return input;
  }
  function showAdded(id, name) {
    const line = document.getElementById("added");
    if (!line || !document.getElementById(id)) return;
    const entry = id.replace(/^entry-/, "");
    const upgrades = document.createElement("a");
    upgrades.href = "?entry=" + encodeURIComponent(entry) + "#" + id;
    upgrades.dataset.open = "";
    upgrades.textContent = "Upgrades";
    const undo = document.createElement("form");
    undo.method = "post";
    undo.setAttribute("action", workspace.dataset.url);
    undo.className = "inline";
    undo.dataset.live = "";
    undo.append(field("csrfmiddlewaretoken", token), field("action", "remove"), field("entry", entry));
    const button = document.createElement("button");
    button.type = "submit";
    button.className = "small";
    button.textContent = "Undo";
    button.setAttribute("aria-label", `Undo: take out the ${name} just added`);
    undo.append(button);
    line.replaceChildren(`Added ${name} · `, upgrades, " · ", undo);
    // Over the panel on a phone, the new unit at the top; on a desktop only as far as it takes to show it.
    focusUnit(id, opener() && opener().offsetParent !== null ? "start" : "nearest");
  }

  function send(form, submitter) {
    const data = new FormData(form);
    if (submitter && submitter.name) data.append(submitter.name, submitter.value);
    const [entry, action] = [data.get("entry"), data.get("action")];
    const label = (submitter && submitter.getAttribute("aria-label")) || "";
    const name = label.replace(/^\S+ /, "").replace(/ \(.*\)$/, "");
    const what = DONE[action] ? `${DONE[action]} ${name}. ` : "";
    let before = [];
    const build = () => {
      before = entryIds();
      return data;
    };
    return enqueue(form.getAttribute("action"), build, () => {
      const now = entryIds();
      const fresh = now.filter((id) => !before.includes(id));
      if (entry && action !== "remove") keepEntryInUrl(entry);
      if (action === "add" && fresh.length) showAdded(fresh[0], name);
      else if (action === "undo" && fresh.length) focusUnit(fresh[0], "start"); // the unit put back
      else if (action === "clear") {
        // Every unit gone: the Undo in the message that confirms it (marked autofocus for a page loaded anew).
        const offered = workspace.querySelector(".messages [autofocus]");
        if (offered) offered.focus();
      } else if (action === "remove" && entry) {
        // The focus goes to the unit that followed the one removed (or the one before it), not to nothing.
        const at = before.indexOf("entry-" + entry);
        const next = before.slice(at + 1).concat(before.slice(0, at).reverse()).find((id) => now.includes(id));
        const offered = workspace.querySelector(".messages [autofocus]");
        if (next) focusUnit(next);
        else if (offered) offered.focus(); // the last unit gone: its Undo
      }
      announce(what);
    });
  }

  // An upgrade change as only what was touched.
  function sendChange(form, fields) {
    const data = new FormData();
    for (const name of ["csrfmiddlewaretoken", "action", "entry"]) data.set(name, form.elements[name].value);
    data.set("partial", "1");
    for (const [name, value] of fields) data.append(name, value);
    return enqueue(form.getAttribute("action"), () => data, () => announce(""));
  }

  workspace.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.matches("form[data-live]")) return;
    event.preventDefault();
    const submitter = event.submitter;
    if (form.matches("[data-autosubmit-form]") && submitter && submitter.name === "bump") {
      sendChange(form, [["bump", submitter.value]]);
    } else {
      send(form, submitter);
    }
  });

  workspace.addEventListener("change", (event) => {
    const field = event.target;
    const form = field.form;
    if (!form) return;
    if (form.matches("[data-autosubmit-form]")) {
      if (field.type === "checkbox") {
        sendChange(form, [["set", field.value + "=" + (field.checked ? 1 : 0)]]);
      } else if (field.type === "radio") {
        const group = Array.from(form.querySelectorAll("input[type=radio]")).filter((r) => r.name === field.name);
        sendChange(form, group.filter((r) => r.value).map((r) => ["set", r.value + "=" + (r.checked ? 1 : 0)]));
      } else if (field.type === "number" && field.value !== "") {
        sendChange(form, [["set", field.name.slice(2) + "=" + field.value]]);
      }
    }
  });

  workspace.addEventListener("click", (event) => {
    const opener = event.target.closest("a[data-open]");
    if (opener && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
      // Open (or close) a unit's upgrades in place, without a reload.
      event.preventDefault();
      if (opener.closest("#added")) setAdding(false); // to the upgrades, out from under the panel
      const url = new URL(opener.href);
      const entry = url.searchParams.get("entry");
      enqueue(url.pathname + url.search, null, () => {
        keepEntryInUrl(entry);
        const editor = entry && document.getElementById("editor");
        const first = editor && editor.querySelector("input:not([type=hidden]), button");
        if (first) {
          first.focus({ preventScroll: true });
          // Out of sight, or under the sticky totals bar: brought to just below the bar (the page's scroll padding).
          const box = editor.getBoundingClientRect();
          const bar = workspace.querySelector(".totals").getBoundingClientRect().bottom;
          if (box.top < bar || box.top > window.innerHeight * 0.8) editor.scrollIntoView({ block: "start" });
        }
      });
      return;
    }
    const button = event.target.closest("[data-copy]");
    if (!button) return;
    const input = document.querySelector(button.dataset.copy);
    input.select();
    const done = () => { button.textContent = "Copied"; };
    if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, () => document.execCommand("copy") && done());
    else if (document.execCommand("copy")) done();
  });

  // A drop-down that applies its choice (Join): on a closed <select> the arrow keys step through the choices, each step
  // a change. A choice made with the keyboard is sent on Enter or when the focus leaves the drop-down; one picked with
  // a mouse or a finger at once.
  let keyed = false;
  function sendChoice(select) {
    const saved = Array.from(select.options).find((option) => option.defaultSelected) || select.options[0];
    if (!select.form || select.value === saved.value || select.dataset.sent === select.value) return;
    select.dataset.sent = select.value;
    send(select.form, null);
  }
  workspace.addEventListener("pointerdown", () => { keyed = false; }, true);
  workspace.addEventListener("keydown", (event) => {
    if (!event.target.matches("select[data-autosubmit]")) return;
    keyed = true;
    if (event.key === "Enter") {
      event.preventDefault();
      sendChoice(event.target);
    }
  });
  workspace.addEventListener("focusout", (event) => {
    if (event.target.matches("select[data-autosubmit]")) sendChoice(event.target);
  });
  workspace.addEventListener("change", (event) => {
    if (event.target.matches("select[data-autosubmit]") && !keyed) sendChoice(event.target);
  });

})();
