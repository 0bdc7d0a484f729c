// The emulator's chat page: one conversation with the bot, updated live over SSE.
// Message text is only ever inserted as text nodes (never innerHTML) so nothing a bot
// or user sends can inject markup.
"use strict";

const STORAGE_KEY = "deputy-emulator.user";
const TYPING_MS = 5000; // Telegram shows a chat action for about five seconds
const $ = (selector) => document.querySelector(selector);

const page = {
  user: loadUser(),
  botName: "Deputy",
  messages: new Map(), // message_id -> message JSON (the user-API shape)
  source: null,
  connected: false,
  typingUntil: 0,
  typingTimer: 0,
  reconnectTimer: 0,
  generation: 0, // bumps on user switch so late answers for the old user are ignored
};

function loadUser() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) || "null");
    if (saved && Number.isInteger(saved.id) && saved.id > 0) {
      return { id: saved.id, name: String(saved.name || "") || `User ${saved.id}` };
    }
  } catch (_) { /* corrupt storage: fall back to the default user */ }
  return { id: 1, name: "Demo" };
}

function saveUser() {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(page.user));
}

async function api(path, options = {}) {
  const response = await fetch(path, {
    headers: options.body ? { "Content-Type": "application/json" } : {},
    ...options,
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error((body && body.error) || `HTTP ${response.status}`);
  return body;
}

// ---------------------------------------------------------------- rendering text
const SAFE_PROTOCOLS = new Set(["http:", "https:", "tg:", "mailto:"]);

function safeHref(raw) {
  try {
    const url = new URL(raw, window.location.href);
    return SAFE_PROTOCOLS.has(url.protocol) ? url.href : null;
  } catch (_) {
    return null;
  }
}

function entityElement(entity, content) {
  const tags = { bold: "strong", italic: "em", underline: "u", strikethrough: "s", code: "code", pre: "pre" };
  if (tags[entity.type]) return document.createElement(tags[entity.type]);
  if (entity.type === "blockquote" || entity.type === "expandable_blockquote") {
    return document.createElement("blockquote");
  }
  if (entity.type === "text_link" || entity.type === "url" || entity.type === "email") {
    const raw = entity.type === "text_link" ? entity.url
      : entity.type === "email" ? `mailto:${content}`
      : /^[a-z][a-z0-9+.-]*:/i.test(content) ? content : `https://${content}`;
    const href = safeHref(raw);
    const link = document.createElement(href ? "a" : "span");
    if (href) { link.href = href; link.target = "_blank"; link.rel = "noopener noreferrer"; }
    return link;
  }
  const span = document.createElement("span");
  if (entity.type === "spoiler") {
    span.className = "spoiler";
    span.title = "Spoiler: click to reveal";
    span.addEventListener("click", () => span.classList.toggle("revealed"));
  } else if (entity.type === "bot_command") {
    span.className = "command";
    span.setAttribute("role", "link");
    span.tabIndex = 0;
    span.addEventListener("click", () => sendText(content));
    span.addEventListener("keydown", (e) => { if (e.key === "Enter") sendText(content); });
  }
  return span;
}

// Entities use UTF-16 offsets, which is exactly how JavaScript indexes strings.
function renderRich(parent, text, entities, start, end) {
  let pos = start;
  for (let i = 0; i < entities.length; i++) {
    const e = entities[i];
    if (e.offset < pos) continue; // nested in (or overlapping) one already rendered
    if (e.offset > pos) parent.append(text.slice(pos, e.offset));
    const stop = e.offset + e.length;
    const el = entityElement(e, text.slice(e.offset, stop));
    const inner = entities.slice(i + 1).filter((x) => x.offset >= e.offset && x.offset + x.length <= stop);
    renderRich(el, text, inner, e.offset, stop);
    parent.append(el);
    pos = stop;
  }
  if (pos < end) parent.append(text.slice(pos, end));
}

function renderText(container, text, entities) {
  const valid = (entities || [])
    .filter((e) => e.length > 0 && e.offset >= 0 && e.offset + e.length <= text.length)
    .sort((a, b) => a.offset - b.offset || b.length - a.length);
  renderRich(container, text, valid, 0, text.length);
}

// ---------------------------------------------------------------- rendering messages
function formatTime(date) {
  return new Date(date * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

function formatSize(bytes) {
  if (!bytes) return "";
  const units = ["B", "KB", "MB", "GB"];
  let i = 0;
  let size = bytes;
  while (size >= 1024 && i < units.length - 1) { size /= 1024; i++; }
  return `${size.toFixed(i ? 1 : 0)} ${units[i]}`;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderMessage(msg) {
  const root = el("div", "message");
  root.dataset.messageId = String(msg.message_id);
  root.dataset.from = msg.from;
  root.id = `message-${msg.message_id}`;
  const bubble = el("div", "bubble");
  root.append(bubble);

  if (msg.reply_to) bubble.append(renderReplyQuote(msg.reply_to));
  if (msg.document) {
    const doc = msg.document;
    const link = el("a", "document");
    link.href = `/api/files/${encodeURIComponent(doc.file_id)}`;
    link.setAttribute("download", doc.file_name);
    link.append(el("span", "doc-icon", "📄"));
    const info = el("span", "doc-info");
    info.append(el("span", "doc-name", doc.file_name), el("span", "doc-size", formatSize(doc.file_size)));
    link.append(info);
    bubble.append(link);
  }
  const text = el("div", "text");
  renderText(text, msg.text || "", msg.entities);
  bubble.append(text);

  const meta = el("span", "meta");
  if (msg.edited) meta.append(el("span", "edited", "edited"));
  const time = el("time", "", formatTime(msg.date));
  time.dateTime = new Date(msg.date * 1000).toISOString();
  time.title = new Date(msg.date * 1000).toLocaleString();
  meta.append(time);
  bubble.append(meta);

  if (msg.buttons && msg.buttons.length) root.append(renderKeyboard(msg));
  return root;
}

function renderReplyQuote(replyTo) {
  const quote = el("button", "reply-quote");
  quote.type = "button";
  const original = page.messages.get(replyTo);
  const author = !original ? "" : original.from === "bot" ? page.botName : page.user.name;
  quote.append(el("span", "reply-author", author || "Reply"));
  quote.append(el("span", "reply-text", original ? (original.text || "📄 Document").slice(0, 100) : "Deleted message"));
  quote.addEventListener("click", () => {
    const target = document.getElementById(`message-${replyTo}`);
    if (!target) return;
    target.scrollIntoView({ block: "center" });
    target.classList.remove("flash");
    void target.offsetWidth; // restart the animation
    target.classList.add("flash");
  });
  return quote;
}

function renderKeyboard(msg) {
  const keyboard = el("div", "keyboard");
  keyboard.setAttribute("role", "group");
  keyboard.setAttribute("aria-label", "Message buttons");
  for (const row of msg.buttons) {
    const rowEl = el("div", "keyboard-row");
    for (const button of row) {
      const b = el("button", "inline-button", button.text);
      b.type = "button";
      if (button.url) {
        b.classList.add("url");
        b.title = button.url;
        b.addEventListener("click", () => {
          const href = safeHref(button.url);
          if (href) window.open(href, "_blank", "noopener");
        });
      } else if (button.data == null) {
        b.disabled = true;
        b.title = "This kind of button is not supported by the emulator";
      } else {
        b.addEventListener("click", () => press(msg.message_id, button.data, b));
      }
      rowEl.append(b);
    }
    keyboard.append(rowEl);
  }
  return keyboard;
}

// ---------------------------------------------------------------- chat updates
function isNearBottom() {
  const list = $("#messages");
  return list.scrollHeight - list.scrollTop - list.clientHeight < 120;
}

function scrollToBottom() {
  const list = $("#messages");
  list.scrollTop = list.scrollHeight;
}

function updateEmpty() {
  $("#empty").hidden = page.messages.size > 0;
}

function upsert(msg) {
  const stick = isNearBottom() || msg.from === "user";
  const node = renderMessage(msg);
  const existing = document.getElementById(`message-${msg.message_id}`);
  page.messages.set(msg.message_id, msg);
  if (existing) {
    existing.replaceWith(node);
  } else {
    // Keep message-id order even if events and history interleave.
    const later = [...document.querySelectorAll(".message")]
      .find((m) => Number(m.dataset.messageId) > msg.message_id);
    $("#messages").insertBefore(node, later || null);
  }
  if (msg.from === "bot" && !existing) setTyping(false);
  updateEmpty();
  if (stick && !existing) scrollToBottom();
}

function removeMessage(messageId) {
  page.messages.delete(messageId);
  const node = document.getElementById(`message-${messageId}`);
  if (node) node.remove();
  updateEmpty();
}

function clearChat() {
  page.messages.clear();
  document.querySelectorAll(".message").forEach((m) => m.remove());
  updateEmpty();
}

async function resync() {
  const generation = page.generation;
  try {
    const messages = await api(`/api/users/${page.user.id}/messages`);
    if (generation !== page.generation) return;
    clearChat();
    messages.forEach(upsert);
    scrollToBottom();
  } catch (err) {
    toast(`Could not load the chat: ${err.message}`, { error: true });
  }
}

function applyEvent(event) {
  switch (event.type) {
    case "message":
    case "edit": {
      const { type, ...msg } = event;
      upsert(msg);
      break;
    }
    case "delete": removeMessage(event.message_id); break;
    case "answer":
      document.querySelectorAll(".inline-button.pending").forEach((b) => b.classList.remove("pending"));
      if (event.text) toast(event.text, { alert: event.show_alert });
      break;
    case "action": setTyping(true); break;
    case "reset": clearChat(); break;
    default: break;
  }
}

// ---------------------------------------------------------------- status line
function setTyping(on) {
  page.typingUntil = on ? Date.now() + TYPING_MS : 0;
  clearTimeout(page.typingTimer);
  if (on) page.typingTimer = setTimeout(renderStatus, TYPING_MS + 50);
  renderStatus();
}

function renderStatus() {
  const status = $("#status");
  const typing = Date.now() < page.typingUntil;
  status.classList.toggle("typing", typing && page.connected);
  status.classList.toggle("offline", !page.connected);
  status.textContent = !page.connected ? "connecting…" : typing ? "typing…" : "bot";
}

// ---------------------------------------------------------------- live events
function connect() {
  if (page.source) page.source.close();
  clearTimeout(page.reconnectTimer);
  const source = new EventSource(`/api/users/${page.user.id}/events`);
  page.source = source;
  source.onopen = () => {
    page.connected = true;
    renderStatus();
    resync(); // catch up on whatever happened while disconnected
  };
  source.onmessage = (e) => {
    try { applyEvent(JSON.parse(e.data)); } catch (err) { console.error("bad event", err); }
  };
  source.onerror = () => {
    page.connected = false;
    renderStatus();
    // The browser retries by itself unless the stream is CLOSED (e.g. an HTTP error).
    if (source.readyState === EventSource.CLOSED && page.source === source) {
      page.reconnectTimer = setTimeout(connect, 2000);
    }
  };
}

// ---------------------------------------------------------------- actions
async function sendText(text) {
  try {
    await api(`/api/users/${page.user.id}/messages`, {
      method: "POST",
      body: JSON.stringify({ text, first_name: page.user.name }),
    });
    if (!page.connected) resync();
    return true;
  } catch (err) {
    toast(`Not sent: ${err.message}`, { error: true });
    return false;
  }
}

async function press(messageId, data, button) {
  button.classList.add("pending");
  setTimeout(() => button.classList.remove("pending"), 10000);
  try {
    await api(`/api/users/${page.user.id}/press`, {
      method: "POST",
      body: JSON.stringify({ message_id: messageId, data }),
    });
  } catch (err) {
    button.classList.remove("pending");
    toast(`Press failed: ${err.message}`, { error: true });
  }
}

function toast(text, { alert = false, error = false } = {}) {
  const node = el("div", "toast", "");
  node.setAttribute("role", alert || error ? "alert" : "status");
  if (error) node.classList.add("error");
  node.append(el("span", "toast-text", text));
  if (alert) {
    // Telegram's show_alert is a modal the user must dismiss.
    node.classList.add("alert");
    const ok = el("button", "primary", "OK");
    ok.type = "button";
    ok.addEventListener("click", () => node.remove());
    node.append(ok);
    setTimeout(() => ok.focus(), 0);
  } else {
    setTimeout(() => node.remove(), 3500);
  }
  $("#toasts").append(node);
}

function autoGrow() {
  const box = $("#composer");
  box.style.height = "auto";
  box.style.height = `${box.scrollHeight}px`;
}

async function submitComposer(event) {
  if (event) event.preventDefault();
  const box = $("#composer");
  const text = box.value;
  if (!text.trim()) return;
  box.value = "";
  autoGrow();
  if (!(await sendText(text))) box.value = text; // keep the draft if sending failed
  box.focus();
}

// ---------------------------------------------------------------- commands menu
async function loadCommands() {
  const generation = page.generation;
  let commands = [];
  try { commands = await api(`/api/users/${page.user.id}/commands`); } catch (_) { /* no menu */ }
  if (generation !== page.generation) return;
  const menu = $("#commands-menu");
  menu.replaceChildren();
  for (const c of commands) {
    const item = el("button", "command-item");
    item.type = "button";
    item.setAttribute("role", "menuitem");
    item.append(el("span", "command-name", `/${c.command}`), el("span", "command-description", c.description));
    item.addEventListener("click", () => { toggleMenu(false); sendText(`/${c.command}`); });
    menu.append(item);
  }
  $("#menu-button").hidden = commands.length === 0;
}

function toggleMenu(open) {
  const menu = $("#commands-menu");
  const show = open ?? menu.hidden;
  if (show) loadCommands();
  menu.hidden = !show;
  $("#menu-button").setAttribute("aria-expanded", String(show));
  if (show) setTimeout(() => menu.querySelector("button")?.focus(), 50);
}

// ---------------------------------------------------------------- user switcher
function renderUser() {
  $("#current-user").textContent = page.user.name;
  $("#current-user-id").textContent = `#${page.user.id}`;
  $("#user-id").value = String(page.user.id);
  $("#user-name").value = page.user.name;
}

async function loadKnownUsers() {
  const select = $("#known-users");
  try {
    const users = await api("/api/users");
    select.replaceChildren(el("option", "", "— pick a known user —"));
    select.firstChild.value = "";
    for (const u of users) {
      const option = el("option", "", `${u.first_name} (#${u.user_id})`);
      option.value = JSON.stringify(u);
      select.append(option);
    }
  } catch (_) { /* the list is a convenience only */ }
}

function switchUser(id, name) {
  page.user = { id, name: name || `User ${id}` };
  page.generation++;
  saveUser();
  renderUser();
  clearChat();
  setTyping(false);
  connect();
  loadCommands();
}

function init() {
  renderUser();
  renderStatus();
  updateEmpty();
  api("/api/bot").then((bot) => {
    page.botName = bot.first_name;
    $("#bot-name").textContent = bot.first_name;
    $("#bot-avatar").textContent = (bot.first_name || "?").slice(0, 1).toUpperCase();
    document.title = `${bot.first_name} · Telegram emulator`;
  }).catch(() => {});

  $("#composer-form").addEventListener("submit", submitComposer);
  $("#composer").addEventListener("input", autoGrow);
  $("#composer").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) submitComposer(e);
  });
  $("#start-button").addEventListener("click", () => sendText("/start"));
  $("#menu-button").addEventListener("click", () => toggleMenu());
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") toggleMenu(false); });

  $("#user-switcher").addEventListener("toggle", (e) => { if (e.target.open) loadKnownUsers(); });
  $("#known-users").addEventListener("change", (e) => {
    if (!e.target.value) return;
    const u = JSON.parse(e.target.value);
    $("#user-id").value = String(u.user_id);
    $("#user-name").value = u.first_name;
  });
  $("#user-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const id = Number($("#user-id").value);
    if (!Number.isInteger(id) || id <= 0) { toast("User id must be a positive whole number", { error: true }); return; }
    switchUser(id, $("#user-name").value.trim());
    $("#user-switcher").open = false;
    $("#composer").focus();
  });

  connect();
  loadCommands();
  $("#composer").focus();
}

document.addEventListener("DOMContentLoaded", init);
