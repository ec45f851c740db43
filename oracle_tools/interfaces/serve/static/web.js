// Name autocomplete for the name boxes (Scryfall's /cards/autocomplete rule): a listbox under the box,
// arrow keys to move, Enter to take a name, Escape to close. A box's data-autocomplete says what taking a name
// does: "query" (a search box) opens the card's page, "lookup" (the name page's box) looks the name up, "name"
// fills the box in. Every page works without this script.
"use strict";
(function () {
  const QUERY_SYNTAX = /[:<>=!"()]/;
  let counter = 0;
  function attach(input) {
    const kind = input.dataset.autocomplete;
    const list = document.createElement("ul");
    const id = "ac-" + (++counter);
    list.id = id;
    list.className = "ac-list";
    list.setAttribute("role", "listbox");
    list.hidden = true;
    const wrap = document.createElement("span");
    wrap.className = "ac-wrap";
    input.parentNode.insertBefore(wrap, input);
    wrap.appendChild(input);
    wrap.appendChild(list);
    // A text box that owns a list of suggestions (aria-autocomplete, aria-controls, aria-activedescendant); a
    // hidden live region says how many there are.
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", id);
    const status = document.createElement("span");
    status.className = "sr";
    status.setAttribute("role", "status");
    wrap.appendChild(status);
    let active = -1, names = [], timer = null, asked = "";
    function close() {
      list.hidden = true; active = -1; input.dataset.suggesting = "false";
      input.removeAttribute("aria-activedescendant");
    }
    function show() {
      list.replaceChildren();
      names.forEach(function (name, i) {
        const li = document.createElement("li");
        li.id = id + "-" + i;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", i === active ? "true" : "false");
        li.textContent = name;
        li.addEventListener("mousedown", function (e) { e.preventDefault(); take(name); });
        list.appendChild(li);
      });
      list.hidden = names.length === 0;
      input.dataset.suggesting = names.length ? "true" : "false";
      status.textContent = names.length ? names.length + " names; arrow keys to choose, Enter to take one" : "";
      if (active >= 0) { input.setAttribute("aria-activedescendant", id + "-" + active); }
      else { input.removeAttribute("aria-activedescendant"); }
    }
    function take(name) {
      close();
      if (kind === "query") { window.location.href = "/card?name=" + encodeURIComponent(name); return; }
      input.value = name;
      if (kind === "lookup" && input.form) { input.form.submit(); }  // the name page's box: look the name up
    }
    function ask() {
      const text = input.value.trim();
      if (text === asked) { return; }
      asked = text;
      if (text.length < 2 || (kind === "query" && QUERY_SYNTAX.test(text))) { names = []; close(); return; }
      fetch("/cards/autocomplete?q=" + encodeURIComponent(text), { headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : { data: [] }; })
        .then(function (body) {
          if (input.value.trim() !== text) { return; }
          names = body.data || []; active = -1; show();
        })
        .catch(function () { names = []; close(); });
    }
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(ask, 120); });
    input.addEventListener("blur", function () { setTimeout(close, 100); });
    input.addEventListener("keydown", function (e) {
      if (list.hidden) { return; }
      if (e.key === "ArrowDown") { active = Math.min(active + 1, names.length - 1); show(); e.preventDefault(); }
      else if (e.key === "ArrowUp") { active = Math.max(active - 1, -1); show(); e.preventDefault(); }
      else if (e.key === "Enter" && active >= 0) { e.preventDefault(); take(names[active]); }
      else if (e.key === "Escape") { close(); e.preventDefault(); }
    });
  }
  document.querySelectorAll("input[data-autocomplete]").forEach(attach);
})();
