// The offline duel's QR texts: `<body>~<sig>`, body compact JSON, sig base64url (no padding) of
// the raw r‖s ECDSA P-256/SHA-256 signature over the body's UTF-8 bytes (docs/protocol.md,
// "Offline duels"). Pure helpers over WebCrypto: no storage, no page.
const ECDSA = { name: "ECDSA", hash: "SHA-256" };
const utf8 = (text) => new TextEncoder().encode(text);

export function b64url(bytes) {
  let s = "";
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function unb64url(text) {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

export function randomB64(bytes) {
  return b64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export async function sha256(data) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", typeof data === "string" ? utf8(data) : data));
}

// `prev` of the next text: the hash of the whole previous text, its signature included.
export async function prevOf(text) {
  return b64url(await sha256(text));
}

// A's commitment to a card: the hash of `<card_id>.<nonce>`, opened by the reveal.
export async function commitment(cardId, nonce) {
  return b64url(await sha256(`${cardId}.${nonce}`));
}

// A key's id: the first 8 bytes of the SHA-256 of the 65 raw bytes of its public point.
export async function keyIdOf(rawPublic) {
  return b64url((await sha256(rawPublic)).slice(0, 8));
}

// The key a round 1 challenge or pick names: its `K` or its `i`, exactly one of the two and not
// empty (a null counts as absent), as the server reads it; null when not so.
export function keyShown(body) {
  const { K = null, i = null } = body ?? {};
  if ((K === null) === (i === null)) return null;
  const key = K ?? i;
  return typeof key === "string" && key !== "" ? key : null;
}

// body (an object, keys in the order the contract writes them) -> the signed QR text.
export async function seal(body, privateKey) {
  const json = JSON.stringify(body);
  const sig = await crypto.subtle.sign(ECDSA, privateKey, utf8(json));
  return `${json}~${b64url(sig)}`;
}

// A QR text -> {body, json, sig}, or null when it is not one of ours.
export function parse(text) {
  const cut = typeof text === "string" ? text.lastIndexOf("~") : -1;
  if (cut < 1) return null;
  try {
    const body = JSON.parse(text.slice(0, cut));
    if (!body || typeof body !== "object" || !["c", "p", "r"].includes(body.t)) return null;
    return { body, json: text.slice(0, cut), sig: text.slice(cut + 1) };
  } catch {
    return null;
  }
}

const imported = new Map();

function publicKey(publicB64) {
  if (!imported.has(publicB64)) {
    imported.set(publicB64, crypto.subtle.importKey("raw", unb64url(publicB64), { name: "ECDSA", namedCurve: "P-256" }, true, ["verify"]));
  }
  return imported.get(publicB64);
}

// Whether a parsed text is signed by the key registered as `publicB64`.
export async function signedBy(parsed, publicB64) {
  if (!parsed || !publicB64) return false;
  try {
    return await crypto.subtle.verify(ECDSA, await publicKey(publicB64), unb64url(parsed.sig), utf8(parsed.json));
  } catch {
    return false;
  }
}

// -- the card a pick or a reveal plays -----------------------------------------------------------

// A phone knows its own cards only: a signed pick or reveal carries the face of the card it plays
// (`f`), which the other phone settles the round with; the server checks it is that card.
const FACE = ["title", "big", "small", "kind", "ranged", "effect", "effect_s"];

// A card's face as `f` carries it: what a plain card lacks (no effect, not ranged) left out.
export function faceData(card) {
  return Object.fromEntries(FACE.filter((k) => card[k] != null && card[k] !== false).map((k) => [k, card[k]]));
}

// A QR's content read -> {text, face}: the signed text, and the face its body carries (null when
// none, or not a card's face).
export function fromQr(content) {
  const shown = parse(content)?.body?.f;
  const number = (n) => Number.isInteger(n) && n >= 0 && n <= 99;
  const face = typeof shown?.title === "string" && number(shown.big) && number(shown.small) && typeof shown.kind === "string"
    ? { ranged: false, ...shown }
    : null;
  return { text: content, face };
}
