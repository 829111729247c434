// The playground's one script: turn what a person does on the page into acts the server
// performs through the emulator's people API, and redraw when the emulator says something
// changed. It builds no HTML from data: every redraw is HTML the server rendered and escaped.
// Every address it asks is relative: the page lives under its token, /<token>/.
"use strict";

const app = () => document.getElementById("app");
const person = () => document.getElementById("sk-as").value;
let queue = Promise.resolve();
const dirty = new Map(); // text inputs typed into but not yet sent: key -> {surface, el, text}
let homeOpenedFor = null;

function surfaceOf(el) {
  const s = el.closest(".surface");
  return s ? { kind: s.dataset.kind, channel: s.dataset.channel, id: s.dataset.id } : null;
}

function keyOf(el) {
  const s = surfaceOf(el);
  return s ? [s.kind, s.channel, s.id, el.dataset.block, el.dataset.action].join("\u001f") : null;
}

function toast(message) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

async function post(body) {
  const response = await fetch("act", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user: person(), ...body }),
  });
  const result = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) toast(result.error || `HTTP ${response.status}`);
  else if (result.delivered && !result.acked) toast(`The app did not acknowledge in time (HTTP ${result.status}).`);
  return result;
}

// Acts run one after another, drafts first, so Slack's order is kept: what was typed is in
// the draft before the click that sends it.
function act(body) {
  const drafts = [...dirty.values()];
  dirty.clear();
  queue = queue
    .then(async () => {
      for (const d of drafts) await post({ do: "type", surface: d.surface, block_id: d.block, action_id: d.action, text: d.text });
      if (body) await post(body);
    })
    .catch((error) => toast(String(error)))
    .then(refresh);
  return queue;
}

function elementAct(el, fields) {
  return act({ surface: surfaceOf(el), block_id: el.dataset.block, action_id: el.dataset.action, ...fields });
}

// Redrawing ---------------------------------------------------------------------------

let drawing = null;
let again = false;
let waitingForDialog = false;

async function refresh() {
  if (drawing) { again = true; return drawing; }
  // A confirmation dialog is open: redraw once it closes, not under the person's pointer.
  if (document.querySelector("dialog[open]")) { waitingForDialog = true; return; }
  drawing = (async () => {
    do {
      again = false;
      const url = new URL(location.href);
      url.searchParams.set("partial", "1");
      const response = await fetch(url, { cache: "no-store" });
      if (!response.ok) { toast(await response.text()); break; }
      const html = await response.text();
      redraw(html, response.headers.get("X-Version"));
    } while (again);
  })().finally(() => { drawing = null; });
  return drawing;
}

function redraw(html, version) {
  const root = app();
  const focused = document.activeElement;
  const focusKey = focused && focused.dataset && focused.dataset.el ? keyOf(focused) : null;
  const composer = focused && focused.closest && focused.closest(".sk-composer");
  const composerKey = composer ? `${composer.dataset.channel}|${composer.dataset.thread || ""}` : null;
  const composerTexts = new Map([...root.querySelectorAll(".sk-composer")].map((f) => [`${f.dataset.channel}|${f.dataset.thread || ""}`, f.querySelector("textarea").value]));
  const open = new Set([...root.querySelectorAll("details[open]")].map(keyOf));
  const scrolls = [...root.querySelectorAll(".sk-messages, .sk-modal-body")].map((m) => m.scrollTop);
  const atBottom = [...root.querySelectorAll(".sk-messages")].map((m) => m.scrollHeight - m.scrollTop - m.clientHeight < 40);

  root.innerHTML = html;
  root.dataset.version = version || "";
  localizeDates(root);

  for (const el of root.querySelectorAll("[data-el]")) {
    const d = dirty.get(keyOf(el));
    if (d && "value" in el) el.value = d.text;
    if (el.tagName === "DETAILS" && open.has(keyOf(el))) el.open = true;
    if (focusKey && keyOf(el) === focusKey) el.focus();
  }
  for (const f of root.querySelectorAll(".sk-composer")) {
    const key = `${f.dataset.channel}|${f.dataset.thread || ""}`;
    const area = f.querySelector("textarea");
    area.value = composerTexts.get(key) || "";
    if (key === composerKey) area.focus();
  }
  root.querySelectorAll(".sk-messages, .sk-modal-body").forEach((m, i) => {
    if (i < scrolls.length) m.scrollTop = scrolls[i];
  });
  root.querySelectorAll(".sk-messages").forEach((m, i) => {
    if (i >= atBottom.length || atBottom[i]) m.scrollTop = m.scrollHeight;
  });
  settle();
}

// Dates ------------------------------------------------------------------------------

// A <time data-ts data-format> (a `<!date^…>` token, a message's time) is drawn with its UTC
// fallback; Slack shows it in the reader's own time zone, and so does the page.
function localizeDates(root) {
  for (const el of root.querySelectorAll("time[data-ts][data-format]")) {
    el.textContent = slackDate(Number(el.dataset.ts), el.dataset.format);
  }
}

function slackDate(seconds, format) {
  const at = new Date(seconds * 1000);
  const shown = (options) => new Intl.DateTimeFormat(undefined, options).format(at).replace(/\u202f/g, " ");
  const midnight = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((midnight(at) - midnight(new Date())) / 86400000);
  const pretty = (otherwise) => ({ "-1": "yesterday", 0: "today", 1: "tomorrow" })[String(days)] || otherwise;
  const pad = (n) => String(n).padStart(2, "0");
  const parts = {
    date_num: `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`,
    date: shown({ month: "long", day: "numeric", year: "numeric" }),
    date_short: shown({ month: "short", day: "numeric", year: "numeric" }),
    date_long: shown({ weekday: "long", month: "long", day: "numeric", year: "numeric" }),
    time: shown({ hour: "numeric", minute: "2-digit" }),
    time_secs: shown({ hour: "numeric", minute: "2-digit", second: "2-digit" }),
  };
  parts.date_pretty = pretty(parts.date);
  parts.date_short_pretty = pretty(parts.date_short);
  parts.date_long_pretty = pretty(parts.date_long);
  return format.replace(/\{(\w+)\}/g, (token, name) => (Object.hasOwn(parts, name) ? parts[name] : token));
}

// After every draw: open the Home tab once per visit, and follow a #m-… anchor.
function settle() {
  const home = app().querySelector("[data-home]");
  if (home && homeOpenedFor !== location.href) {
    homeOpenedFor = location.href;
    act({ do: "open_home" });
  }
  if (!home) homeOpenedFor = null;
  if (location.hash) {
    const target = document.getElementById(location.hash.slice(1));
    if (target && !target.classList.contains("is-target")) {
      target.classList.add("is-target");
      target.scrollIntoView({ block: "center" });
    }
  }
}

// A dialog closes by its buttons or by Escape; either way, draw what came meanwhile.
document.addEventListener("close", (event) => {
  if (event.target.matches("dialog") && waitingForDialog) { waitingForDialog = false; refresh(); }
}, true);

// What people do ----------------------------------------------------------------------

document.addEventListener("click", (event) => {
  const el = event.target.closest("button, a, summary");
  if (!el || !app().contains(el)) return;
  if (el.matches("[data-confirm-yes], [data-confirm-no]")) {
    const dialog = el.closest("dialog");
    dialog.close();
    if (el.matches("[data-confirm-yes]")) elementAct(dialog.previousElementSibling, { do: "click" });
    return;
  }
  if (el.matches('button[data-el="button"]')) {
    if (el.dataset.url) window.open(el.dataset.url, "_blank", "noopener,noreferrer");
    if (el.hasAttribute("data-confirm")) { el.nextElementSibling.showModal(); return; }
    elementAct(el, { do: "click" });
    return;
  }
  if (el.matches(".sk-overflow .sk-menu-item")) {
    const menu = el.closest("details");
    menu.open = false;
    elementAct(menu, { do: "select", value: el.dataset.value });
    return;
  }
  if (el.matches("[data-view-submit]")) {
    act({ do: "submit", view_id: surfaceOf(el).id });
    return;
  }
  if (el.matches("[data-view-close]")) {
    act({ do: "close", view_id: surfaceOf(el).id });
  }
});

document.addEventListener("change", (event) => {
  const input = event.target;
  if (!app().contains(input)) return;
  if (input.id === "sk-as") {
    location.href = input.dataset.placeHref.replace("__USER__", encodeURIComponent(input.value));
    return;
  }
  const el = input.closest("[data-el]");
  if (!el) return;
  const kind = el.dataset.el;
  if (kind === "static_select") elementAct(el, { do: "select", value: el.value });
  else if (kind === "multi_static_select") elementAct(el, { do: "select", values: checked(el) });
  else if (kind === "checkboxes") elementAct(el, { do: "check", values: checked(el) });
  else if (kind === "radio_buttons") elementAct(el, { do: "choose", value: input.value });
  else if (el === input) { draft(el); act(null); }
});

document.addEventListener("input", (event) => {
  const el = event.target;
  if (el.dataset && el.dataset.el && "value" in el && el.tagName !== "SELECT") draft(el);
});

function draft(el) {
  const s = surfaceOf(el);
  dirty.set(keyOf(el), { surface: s, block: el.dataset.block, action: el.dataset.action, text: el.value });
}

function checked(el) {
  return [...el.querySelectorAll("input:checked")].map((box) => box.value);
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!form.matches(".sk-composer")) return;
  event.preventDefault();
  const area = form.querySelector("textarea");
  const text = area.value.trim();
  if (!text) return;
  area.value = "";
  const channel = form.dataset.channel;
  const command = text.match(/^(\/\S+)\s*([\s\S]*)$/);
  if (command && !form.dataset.thread) act({ do: "command", channel, command: command[1], text: command[2] });
  else act({ do: "post", channel, thread_ts: form.dataset.thread || null, text });
});

document.addEventListener("keydown", (event) => {
  const area = event.target;
  if (area.matches && area.matches(".sk-composer textarea") && event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    area.form.requestSubmit();
  }
});

// Live updates ------------------------------------------------------------------------

const events = new EventSource("events");
events.onmessage = (event) => {
  if (event.data !== app().dataset.version) refresh();
};
events.onerror = () => { document.body.classList.add("is-offline"); };
events.onopen = () => { document.body.classList.remove("is-offline"); };
// A channel or thread opens at its newest message, as Slack's does (a #m-… anchor, followed
// by settle, wins); redraws then keep it there unless the person scrolled up.
localizeDates(app());
app().querySelectorAll(".sk-messages").forEach((m) => { m.scrollTop = m.scrollHeight; });
settle();
