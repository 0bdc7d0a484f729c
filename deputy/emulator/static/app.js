// The emulator's chat page: one conversation with the bot, updated live over SSE.
// (An ES module, like render.js: strict mode and no globals, no build step.)
import { el, renderMessage } from "./render.js";

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
  // ?user=<id> opens that user's chat (handy for links and tests); otherwise the last one used.
  const asked = Number(new URLSearchParams(location.search).get("user"));
  if (Number.isInteger(asked) && asked > 0) return { id: asked, name: `User ${asked}` };
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

function renderHooks() {
  return {
    lookup: (id) => page.messages.get(id),
    botName: page.botName,
    userName: page.user.name,
    onCommand: (text) => sendText(text),
    onPress: press,
    onEdit: editMessage,
    onDelete: deleteMessage,
  };
}

async function editMessage(msg) {
  const text = window.prompt("Edit your message", msg.text || "");
  if (text === null || text === msg.text) return;
  try {
    await api(`/api/users/${page.user.id}/messages/${msg.message_id}/edit`, {
      method: "POST",
      body: JSON.stringify({ text }),
    });
  } catch (err) {
    toast(`Not edited: ${err.message}`, { error: true });
  }
}

async function deleteMessage(msg) {
  try {
    await api(`/api/users/${page.user.id}/messages/${msg.message_id}`, { method: "DELETE" });
  } catch (err) {
    toast(`Not deleted: ${err.message}`, { error: true });
  }
}

function upsert(msg) {
  const stick = isNearBottom() || msg.from === "user";
  const node = renderMessage(msg, renderHooks());
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
