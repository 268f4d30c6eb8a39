// The card-duel rule the reveal explains: A beats B when A.big > B.big or A.small >= B.small + 2.
export function beats(a, b) {
  return a.big > b.big || a.small >= b.small + 2;
}

// Why card a beat card b: {key, a, b} for the catalogue ("why.big" / "why.small").
export function reason(a, b) {
  if (a.big > b.big) return { key: "why.big", a: a.big, b: b.big };
  return { key: "why.small", a: a.small, b: b.small };
}
