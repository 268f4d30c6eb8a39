// A tiny DOM builder: h("button", {class: "primary", testid: "x", onclick}, "text", child, [more]),
// and mount(), which patches the page to match a freshly built tree instead of replacing it, so a
// re-render (a view pushed mid-tap) keeps the pressed button, the focused field and the scroll.
// keyed() is a long list (a console's 1,000 players) whose rows are built and patched only when
// their data changed: a render costs what changed, not the length of the list.

const HANDLERS = [
  "onclick", "oninput", "onchange", "onsubmit", "ontoggle",
  "onpointerdown", "onpointerup", "onpointercancel", "onpointerleave", "oncontextmenu",
];
const SVG_TAGS = new Set(["svg", "path", "rect", "line", "circle", "text", "g", "title"]);

export function h(tag, attrs, ...children) {
  const el = SVG_TAGS.has(tag)
    ? document.createElementNS("http://www.w3.org/2000/svg", tag)
    : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (HANDLERS.includes(key)) el[key] = value;
    else if (key === "testid") el.dataset.testid = value;
    else if (key === "value" || key === "checked") el[key] = value;
    else if (key === "style") el.style.cssText = value; // CSSOM: the CSP forbids style="" in markup
    else el.setAttribute(key, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// keyed("div", attrs, [{key, data, render}]): each row is render()ed only when it is new or its
// data (compared as JSON) differs from what its element was last drawn from.
export function keyed(tag, attrs, items) {
  const el = h(tag, { ...attrs, "data-keyed": "" });
  el.keyedItems = items;
  return el;
}

export function mount(root, node) {
  patchChildren(root, [node]);
}

// A new subtree going into the page: its keyed lists get their rows first.
function filled(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return node;
  for (const el of [node, ...node.querySelectorAll("[data-keyed]")]) if (el.keyedItems) patchKeyed(el, el.keyedItems);
  return node;
}

function patchKeyed(parent, items) {
  const byKey = new Map([...parent.children].map((row) => [row.dataset.key, row]));
  let cursor = parent.firstChild;
  for (const { key, data, render } of items) {
    const json = JSON.stringify(data);
    let row = byKey.get(key);
    if (!row || row.keyedJson !== json) {
      const next = render();
      next.dataset.key = key;
      if (row && same(row, next)) patch(row, next);
      else row = next;
      row.keyedJson = json;
    }
    if (row === cursor) cursor = cursor.nextSibling;
    else parent.insertBefore(row, cursor);
  }
  while (cursor) {
    const extra = cursor;
    cursor = cursor.nextSibling;
    extra.remove();
  }
}

function same(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
  return a.nodeType !== Node.ELEMENT_NODE || (a.dataset?.testid ?? "") === (b.dataset?.testid ?? "");
}

function patchChildren(parent, wanted) {
  const current = [...parent.childNodes];
  wanted.forEach((next, i) => {
    const old = current[i];
    if (!old) parent.appendChild(filled(next));
    else if (same(old, next)) patch(old, next);
    else parent.replaceChild(filled(next), old);
  });
  for (const extra of current.slice(wanted.length)) extra.remove();
}

function patch(old, next) {
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
    return;
  }
  for (const attr of [...old.attributes]) if (!next.hasAttribute(attr.name)) old.removeAttribute(attr.name);
  for (const attr of [...next.attributes]) {
    if (attr.name === "style") { if (old.style.cssText !== next.style.cssText) old.style.cssText = next.style.cssText; }
    else if (old.getAttribute(attr.name) !== attr.value) old.setAttribute(attr.name, attr.value);
  }
  for (const name of HANDLERS) if (old[name] !== next[name]) old[name] = next[name];
  if (next.keyedItems) patchKeyed(old, next.keyedItems);
  else patchChildren(old, [...next.childNodes]);
  if (old.type === "checkbox") old.checked = next.checked;
  else if ("value" in old && old.nodeName !== "BUTTON" && old.nodeName !== "LI" && old.value !== next.value) old.value = next.value;
}

// Parse SVG markup (from our own server) into a node, without scripts. The HTML parser takes
// both a full document and inline markup without xmlns; a viewBox is added so CSS can scale it.
export function svgNode(markup) {
  const doc = new DOMParser().parseFromString(String(markup), "text/html");
  const svg = doc.querySelector("svg");
  if (!svg) return document.createTextNode("");
  svg.querySelectorAll("script, foreignObject").forEach((el) => el.remove());
  for (const el of [svg, ...svg.querySelectorAll("*")]) {
    for (const attr of [...el.attributes]) if (attr.name.startsWith("on")) el.removeAttribute(attr.name);
  }
  const width = Number.parseFloat(svg.getAttribute("width"));
  const height = Number.parseFloat(svg.getAttribute("height"));
  if (!svg.hasAttribute("viewBox") && width > 0 && height > 0) svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  return document.importNode(svg, true);
}
