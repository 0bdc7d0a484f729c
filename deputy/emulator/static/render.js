// DOM builders for messages. Text is only ever inserted as text nodes (never innerHTML)
// so nothing a bot or user sends can inject markup.
// ---------------------------------------------------------------- rendering text
const SAFE_PROTOCOLS = new Set(["http:", "https:", "tg:", "mailto:"]);

export function safeHref(raw) {
  try {
    const url = new URL(raw, window.location.href);
    return SAFE_PROTOCOLS.has(url.protocol) ? url.href : null;
  } catch (_) {
    return null;
  }
}

function entityElement(entity, content, hooks) {
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
    span.addEventListener("click", () => hooks.onCommand(content));
    span.addEventListener("keydown", (e) => { if (e.key === "Enter") hooks.onCommand(content); });
  }
  return span;
}

// Entities use UTF-16 offsets, which is exactly how JavaScript indexes strings.
function renderRich(parent, text, entities, start, end, hooks) {
  let pos = start;
  for (let i = 0; i < entities.length; i++) {
    const e = entities[i];
    if (e.offset < pos) continue; // nested in (or overlapping) one already rendered
    if (e.offset > pos) parent.append(text.slice(pos, e.offset));
    const stop = e.offset + e.length;
    const node = entityElement(e, text.slice(e.offset, stop), hooks);
    const inner = entities.slice(i + 1).filter((x) => x.offset >= e.offset && x.offset + x.length <= stop);
    renderRich(node, text, inner, e.offset, stop, hooks);
    parent.append(node);
    pos = stop;
  }
  if (pos < end) parent.append(text.slice(pos, end));
}

export function renderText(container, text, entities, hooks) {
  const valid = (entities || [])
    .filter((e) => e.length > 0 && e.offset >= 0 && e.offset + e.length <= text.length)
    .sort((a, b) => a.offset - b.offset || b.length - a.length);
  renderRich(container, text, valid, 0, text.length, hooks);
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

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function fileIcon() {
  // Inline SVG rather than an emoji: headless or minimal systems may lack emoji fonts.
  const ns = "http://www.w3.org/2000/svg";
  const icon = el("span", "doc-icon");
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "22");
  svg.setAttribute("height", "22");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("fill", "currentColor");
  path.setAttribute("d", "M6 2h8l6 6v12a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2zm7 1.5V9h5.5L13 3.5z");
  svg.append(path);
  icon.append(svg);
  return icon;
}

/**
 * Build a message element. `hooks` supplies what rendering needs from the app:
 * lookup(messageId), botName, userName, onCommand(text), onPress(messageId, data, button),
 * onEdit(msg) and onDelete(msg) (the user edits their own text, deletes any message).
 */
export function renderMessage(msg, hooks) {
  const root = el("div", "message");
  root.dataset.messageId = String(msg.message_id);
  root.dataset.from = msg.from;
  root.id = `message-${msg.message_id}`;
  const bubble = el("div", "bubble");
  root.append(bubble);

  if (msg.reply_to) bubble.append(renderReplyQuote(msg.reply_to, hooks));
  if (msg.document) {
    const doc = msg.document;
    const link = el("a", "document");
    link.href = `/api/files/${encodeURIComponent(doc.file_id)}`;
    link.setAttribute("download", doc.file_name);
    link.append(fileIcon());
    const info = el("span", "doc-info");
    info.append(el("span", "doc-name", doc.file_name), el("span", "doc-size", formatSize(doc.file_size)));
    link.append(info);
    bubble.append(link);
  }
  if (msg.photo) {
    const photo = msg.photo;
    const link = el("a", "photo");
    link.href = photo.url;
    link.target = "_blank";
    link.rel = "noopener";
    const img = el("img", "photo-image");
    img.src = photo.url;
    img.alt = msg.text ? `Photo: ${msg.text.slice(0, 120)}` : "Photo";
    img.width = photo.width;
    img.height = photo.height;
    img.loading = "lazy";
    link.append(img);
    bubble.append(link);
    root.classList.add("has-photo");
  }
  const text = el("div", "text");
  renderText(text, msg.text || "", msg.entities, hooks);
  bubble.append(text);

  const meta = el("span", "meta");
  if (msg.edited) meta.append(el("span", "edited", "edited"));
  const time = el("time", "", formatTime(msg.date));
  time.dateTime = new Date(msg.date * 1000).toISOString();
  time.title = new Date(msg.date * 1000).toLocaleString();
  meta.append(time);
  if (hooks.onEdit && msg.from === "user" && !msg.document && !msg.photo) {
    const edit = el("button", "message-action edit-message", "edit");
    edit.type = "button";
    edit.title = "Edit this message (the bot gets an edited_message)";
    edit.addEventListener("click", () => hooks.onEdit(msg));
    meta.append(edit);
  }
  if (hooks.onDelete) {
    const remove = el("button", "message-action delete-message", "delete");
    remove.type = "button";
    remove.title = "Delete this message for both sides (the bot is not told)";
    remove.addEventListener("click", () => hooks.onDelete(msg));
    meta.append(remove);
  }
  bubble.append(meta);

  if (msg.buttons && msg.buttons.length) root.append(renderKeyboard(msg, hooks));
  return root;
}

function renderReplyQuote(replyTo, hooks) {
  const quote = el("button", "reply-quote");
  quote.type = "button";
  const original = hooks.lookup(replyTo);
  const author = !original ? "" : original.from === "bot" ? hooks.botName : hooks.userName;
  quote.append(el("span", "reply-author", author || "Reply"));
  quote.append(el("span", "reply-text", original ? (original.text || (original.document ? original.document.file_name : original.photo ? "Photo" : "")).slice(0, 100) : "Deleted message"));
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

function renderKeyboard(msg, hooks) {
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
        b.addEventListener("click", () => hooks.onPress(msg.message_id, button.data, b));
      }
      rowEl.append(b);
    }
    keyboard.append(rowEl);
  }
  return keyboard;
}
