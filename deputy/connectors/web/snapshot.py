"""What the browser tells us about a page: a bounded, typed snapshot of what a person sees.

`SNAPSHOT_JS` walks the live DOM once (computed styles decide what is visible) and returns
blocks of visible text tagged with the page region they sit in, the page's forms, and the
signals that a human is needed (CAPTCHA widgets, password and one-time-code fields).
Everything it returns was written by the page, so `PageSnapshot` validates it with hard
size limits before any Python code looks at it; `deputy.connectors.web.extract` turns it into text.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_BLOCKS = 4_000
MAX_FORMS = 20
MAX_FIELDS = 60


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Block(_Strict):
    """One run of visible text: a heading, paragraph, list item, preformatted text or quote."""

    kind: Literal["heading", "text", "item", "pre", "quote"]
    level: int = Field(default=0, ge=0, le=6)
    text: str = Field(max_length=20_000)
    region: Literal["main", "body", "boilerplate"]
    """`main`: inside <main>/<article>; `boilerplate`: navigation, header, footer, sidebars."""


class FormField(_Strict):
    tag: str = Field(max_length=20)
    type: str = Field(default="", max_length=40)
    name: str = Field(default="", max_length=300)
    id: str = Field(default="", max_length=300)
    label: str = Field(default="", max_length=300)
    autocomplete: str = Field(default="", max_length=100)
    required: bool = False
    visible: bool = True
    options: list[str] = Field(default_factory=list, max_length=20)

    def key(self) -> str:
        """How the agent should name this field: its name, else its id."""
        return self.name or self.id


class FormButton(_Strict):
    text: str = Field(default="", max_length=300)
    submits: bool = True
    """A submit button (as opposed to a plain `type=button` one that only runs a script)."""
    formaction: str = Field(default="", max_length=2_000)
    """Set when the button sends the form somewhere other than the form's own action."""


class FormInfo(_Strict):
    index: int = Field(ge=0, le=MAX_FORMS)
    """1-based position among the page's forms; 0 for fields that belong to no form."""
    id: str = Field(default="", max_length=300)
    name: str = Field(default="", max_length=300)
    action: str = Field(default="", max_length=2_000)
    method: str = Field(default="get", max_length=20)
    fields: list[FormField] = Field(default_factory=list, max_length=MAX_FIELDS)
    buttons: list[FormButton] = Field(default_factory=list, max_length=20)
    hidden_fields: int = Field(default=0, ge=0)


class Signals(_Strict):
    captcha_widgets: int = Field(default=0, ge=0)
    password_fields: int = Field(default=0, ge=0)
    one_time_code_fields: int = Field(default=0, ge=0)


class PageSnapshot(_Strict):
    url: str = Field(max_length=8_000)
    title: str = Field(default="", max_length=2_000)
    blocks: list[Block] = Field(default_factory=list, max_length=MAX_BLOCKS)
    forms: list[FormInfo] = Field(default_factory=list, max_length=MAX_FORMS + 1)
    hidden_texts: int = Field(default=0, ge=0)
    """Elements with text that the page does not show (display:none, zero size, off-screen...)."""
    truncated: bool = False
    """The walk stopped at its limits: the page has more text than the snapshot holds."""
    signals: Signals = Field(default_factory=Signals)


SNAPSHOT_JS = r"""
(limits) => {
  const BLOCK = new Set(["ADDRESS","ARTICLE","ASIDE","BLOCKQUOTE","BODY","CAPTION","DD","DETAILS","DIV","DL","DT",
    "FIELDSET","FIGCAPTION","FIGURE","FOOTER","FORM","H1","H2","H3","H4","H5","H6","HEADER","HR","LEGEND","LI",
    "MAIN","NAV","OL","P","PRE","SECTION","SUMMARY","TABLE","TBODY","TFOOT","THEAD","TR","UL"]);
  const SKIP = new Set(["SCRIPT","STYLE","NOSCRIPT","TEMPLATE","SVG","CANVAS","HEAD","META","LINK","OBJECT","EMBED",
    "IFRAME","FRAME","AUDIO","VIDEO","MAP","DATALIST","INPUT","SELECT","TEXTAREA","OPTION","MATH","DIALOG"]);
  const BOILER_TAGS = new Set(["NAV","FOOTER","ASIDE"]);
  const BOILER_ROLES = new Set(["navigation","contentinfo","complementary","banner","menu","menubar","search"]);
  const BOILER_WORDS = /(^|[\s_-])(nav|navbar|menu|footer|sidebar|breadcrumbs?|cookie|cookies|consent|banner|social|share|sharing|promo|advert|ads|related|newsletter|skip-link)([\s_-]|$)/i;
  const out = {url: location.href, title: (document.title || "").slice(0, 2000), blocks: [], forms: [],
    hidden_texts: 0, truncated: false, signals: {captcha_widgets: 0, password_fields: 0, one_time_code_fields: 0}};
  let chars = 0, nodes = 0;
  let buf = [], kind = "text", level = 0, region = "body";
  const STOP = {};
  const clip = (s, n) => (s || "").replace(/\s+/g, " ").trim().slice(0, n);

  function isHidden(el, style) {
    if (el.hidden || el.getAttribute("aria-hidden") === "true") return true;
    if (style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse") return true;
    if (parseFloat(style.opacity) === 0) return true;
    if (style.clip === "rect(0px, 0px, 0px, 0px)" || style.clipPath === "inset(50%)") return true;
    const r = el.getBoundingClientRect();
    if ((r.width < 2 || r.height < 2) && style.overflow !== "visible") return true;
    if (r.right < 0 || r.bottom < 0 || r.left > 10000) return true;
    return false;
  }
  function flush() {
    let text = buf.join("");
    text = kind === "pre" ? text.replace(/^\n+|\s+$/g, "") : text.replace(/\s+/g, " ").trim();
    buf = [];
    if (!text) return;
    if (out.blocks.length >= limits.maxBlocks || chars + text.length > limits.maxChars) {
      out.truncated = true; throw STOP;
    }
    chars += text.length;
    out.blocks.push({kind, level, text: text.slice(0, 20000), region});
  }
  function regionOf(el, outer) {
    if (outer === "boilerplate") return outer;
    const role = (el.getAttribute("role") || "").toLowerCase();
    const marks = (el.id || "") + " " + (typeof el.className === "string" ? el.className : "");
    if (BOILER_TAGS.has(el.tagName) || BOILER_ROLES.has(role)) return "boilerplate";
    if (el.tagName === "HEADER" && outer !== "main") return "boilerplate";
    if (el.tagName === "MAIN" || el.tagName === "ARTICLE" || role === "main") return "main";
    if (outer !== "main" && BOILER_WORDS.test(marks)) return "boilerplate";
    return outer;
  }
  // `ink`: the parent's text is drawn (a font size of 0 or a transparent colour hides it,
  // but children may set their own, so this is decided per text node, not per subtree).
  function walk(node, ink) {
    if (++nodes > limits.maxNodes) { out.truncated = true; throw STOP; }
    if (node.nodeType === 3) {
      if (!ink) { if (node.data.trim()) out.hidden_texts++; return; }
      buf.push(kind === "pre" ? node.data : node.data.replace(/\s+/g, " "));
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node, tag = el.tagName;
    if (SKIP.has(tag)) return;
    const style = getComputedStyle(el);
    if (isHidden(el, style)) {
      if ((el.textContent || "").trim()) out.hidden_texts++;
      return;
    }
    ink = parseFloat(style.fontSize) >= 2 && !/rgba\(.*,\s*0\)$/.test(style.color);
    if (tag === "BR") { buf.push("\n"); return; }
    if (tag === "TD" || tag === "TH") { if (buf.join("").trim()) buf.push(" | "); }
    if (tag === "A" && el.href && !/^javascript:/i.test(el.getAttribute("href") || "")) {
      const saved = buf; buf = [];
      for (const child of el.childNodes) walk(child, ink);
      let text = clip(buf.join(""), 300);
      buf = saved;
      if (!text) text = clip(el.getAttribute("aria-label") || el.title || (el.querySelector("img[alt]") || {}).alt, 300);
      if (text) buf.push(" [" + text.replace(/[\[\]]/g, "") + "](" + el.href.slice(0, 500) + ") ");
      return;
    }
    if (tag === "BUTTON" || (el.getAttribute("role") === "button" && !BLOCK.has(tag))) {
      const text = clip(el.innerText || el.getAttribute("aria-label") || "", 200);
      if (text) buf.push(" [button: " + text.replace(/[\[\]]/g, "") + "] ");
      return;
    }
    if (tag === "IMG") {
      const alt = clip(el.alt, 200);
      if (alt) buf.push(" [image: " + alt + "] ");
      return;
    }
    const block = BLOCK.has(tag) || ["block", "flex", "grid", "list-item", "table", "table-row"].includes(style.display);
    if (!block) { for (const child of el.childNodes) walk(child, ink); return; }
    flush();
    const saved = {kind, level, region};
    region = regionOf(el, region);
    if (/^H[1-6]$/.test(tag)) { kind = "heading"; level = +tag[1]; }
    else if (tag === "LI" || tag === "DT" || tag === "DD") { kind = "item"; level = 0; }
    else if (tag === "PRE") { kind = "pre"; level = 0; }
    else if (tag === "BLOCKQUOTE") { kind = "quote"; level = 0; }
    for (const child of el.childNodes) walk(child, ink);
    flush();
    ({kind, level, region} = saved);
  }

  function labelOf(el) {
    let byLabel = "";
    if (el.labels && el.labels.length) {
      // A label wrapping its control would otherwise repeat the control's own text (a select's options).
      const copy = el.labels[0].cloneNode(true);
      copy.querySelectorAll("select,input,textarea,button,datalist").forEach(n => n.remove());
      byLabel = copy.textContent;
    }
    return clip(byLabel || el.getAttribute("aria-label") || el.placeholder || el.title || "", 300);
  }
  function visible(el) {
    const style = getComputedStyle(el);
    return !isHidden(el, style) && (!el.checkVisibility || el.checkVisibility({checkOpacity: true}));
  }
  function fieldsOf(elements) {
    const fields = [], buttons = [];
    let hidden = 0;
    for (const el of elements) {
      const tag = el.tagName.toLowerCase(), type = (el.type || "").toLowerCase();
      if (!["input","select","textarea","button"].includes(tag)) continue;
      if (type === "hidden") { hidden++; continue; }
      if (tag === "button" || ["submit","image","button","reset"].includes(type)) {
        if (type === "reset" || buttons.length >= 20) continue;
        const fa = el.getAttribute("formaction") ? el.formAction : "";
        buttons.push({text: clip(el.innerText || el.value || el.alt || el.getAttribute("aria-label") || "", 300),
                      formaction: (fa || "").slice(0, 2000), submits: type === "submit" || type === "image"});
        continue;
      }
      if (fields.length >= limits.maxFields) continue;
      const shown = visible(el);
      const ac = (el.getAttribute("autocomplete") || "").toLowerCase().slice(0, 100);
      if (shown && type === "password") out.signals.password_fields++;
      if (shown && (ac === "one-time-code" || /(^|[_-])(otp|totp|2fa|mfa|one.?time.?code)([_-]|$)/i.test(el.name || el.id || "")))
        out.signals.one_time_code_fields++;
      fields.push({tag, type: tag === "input" ? type : tag, name: (el.getAttribute("name") || "").slice(0, 300),
        id: (el.id || "").slice(0, 300), label: labelOf(el), autocomplete: ac, required: !!el.required,
        visible: shown, options: tag === "select" ? Array.from(el.options).slice(0, 20).map(o => clip(o.text, 100)) : []});
    }
    return {fields, buttons, hidden_fields: hidden};
  }

  try { if (document.body) walk(document.body, true); flush(); } catch (e) { if (e !== STOP) throw e; }

  Array.from(document.forms).slice(0, limits.maxForms).forEach((form, i) => {
    const action = form.getAttribute("action") === null ? location.href : form.action;
    out.forms.push(Object.assign({index: i + 1, id: (form.id || "").slice(0, 300),
      name: (form.getAttribute("name") || "").slice(0, 300), action: String(action).slice(0, 2000),
      method: (form.getAttribute("method") || "get").toLowerCase().slice(0, 20)}, fieldsOf(form.elements)));
  });
  const loose = Array.from(document.querySelectorAll("input,select,textarea,button")).filter(el => !el.form);
  if (loose.length) {
    const info = fieldsOf(loose.slice(0, 200));
    if (info.fields.length) out.forms.push(Object.assign({index: 0, action: "", method: "get"}, info));
  }
  const widgets = 'iframe[src*="recaptcha"],iframe[src*="hcaptcha"],iframe[src*="challenges.cloudflare.com"],' +
    'iframe[src*="turnstile"],iframe[title*="captcha" i],.g-recaptcha,.h-captcha,.cf-turnstile,[data-sitekey],' +
    'img[src*="captcha" i],input[name*="captcha" i],#captcha';
  out.signals.captcha_widgets = document.querySelectorAll(widgets).length;
  return out;
}
"""
"""The DOM walk; called with `{maxChars, maxNodes, maxBlocks, maxForms, maxFields}`."""
