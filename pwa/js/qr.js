// A small QR encoder: byte mode, error correction M (or L), any version (1 to 40) the text needs:
// a player's code fits version 1; an offline duel's signed text (about 200-290 bytes) is drawn at
// level L, version 9 to 11, so that its modules stay big on a small screen.
// Follows ISO/IEC 18004; checked against segno in the tests.
// Per level and version (index 1-40): error correction codewords per block, and blocks.
const EC_PER_BLOCK = {
  M: [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
  L: [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
};
const BLOCKS = {
  M: [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  L: [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
};
const LEVEL_BITS = { L: 1, M: 0 }; // as the format information writes them

// Codewords a version holds: its modules less the fixed patterns, over 8.
function allWords(version) {
  let modules = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    modules -= (25 * align - 10) * align - 55;
    if (version >= 7) modules -= 36;
  }
  return Math.floor(modules / 8);
}

function dataWords(version, level) {
  return allWords(version) - EC_PER_BLOCK[level][version] * BLOCKS[level][version];
}

// Centres of the alignment patterns on each axis.
function alignments(version) {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const size = 17 + 4 * version;
  const step = version === 32 ? 26 : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const result = [6];
  for (let pos = size - 7; result.length < count; pos -= step) result.splice(1, 0, pos);
  return result;
}

function gfMultiply(x, y) {
  let z = 0;
  for (let i = 7; i >= 0; i -= 1) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z;
}

function rsDivisor(degree) {
  const result = new Array(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i += 1) {
    for (let j = 0; j < degree; j += 1) {
      result[j] = gfMultiply(result[j], root);
      if (j + 1 < degree) result[j] ^= result[j + 1];
    }
    root = gfMultiply(root, 0x02);
  }
  return result;
}

function rsRemainder(data, divisor) {
  const result = divisor.map(() => 0);
  for (const b of data) {
    const factor = b ^ result.shift();
    result.push(0);
    divisor.forEach((coef, i) => {
      result[i] ^= gfMultiply(coef, factor);
    });
  }
  return result;
}

function codewords(bytes, version, level) {
  const capacity = dataWords(version, level);
  const bits = [];
  const put = (value, length) => {
    for (let i = length - 1; i >= 0; i -= 1) bits.push((value >>> i) & 1);
  };
  put(0b0100, 4);
  put(bytes.length, version < 10 ? 8 : 16);
  bytes.forEach((b) => put(b, 8));
  put(0, Math.min(4, capacity * 8 - bits.length));
  put(0, (8 - (bits.length % 8)) % 8);
  const data = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((acc, bit) => (acc << 1) | bit, 0));
  for (let pad = 0xec; data.length < capacity; pad ^= 0xec ^ 0x11) data.push(pad);
  // Split into blocks (the short ones first), each with its error correction, then interleave.
  const ec = EC_PER_BLOCK[level][version];
  const count = BLOCKS[level][version];
  const short = count - (allWords(version) % count);
  const shortLength = Math.floor(allWords(version) / count) - ec;
  const divisor = rsDivisor(ec);
  const blocks = [];
  for (let i = 0, k = 0; i < count; i += 1) {
    const block = data.slice(k, k + shortLength + (i < short ? 0 : 1));
    k += block.length;
    blocks.push({ block, ecc: rsRemainder(block, divisor) });
  }
  const result = [];
  for (let i = 0; i <= shortLength; i += 1) blocks.forEach(({ block }) => i < block.length && result.push(block[i]));
  for (let i = 0; i < ec; i += 1) blocks.forEach(({ ecc }) => result.push(ecc[i]));
  return result;
}

const MASKS = [
  (x, y) => (x + y) % 2 === 0,
  (x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

function build(words, version, mask, level) {
  const size = 17 + 4 * version;
  const dark = Array.from({ length: size }, () => new Array(size).fill(false));
  const fixed = Array.from({ length: size }, () => new Array(size).fill(false));
  const set = (x, y, on) => {
    if (x < 0 || y < 0 || x >= size || y >= size) return;
    dark[y][x] = on;
    fixed[y][x] = true;
  };
  for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
    for (let dy = -4; dy <= 4; dy += 1) {
      for (let dx = -4; dx <= 4; dx += 1) {
        const d = Math.max(Math.abs(dx), Math.abs(dy));
        set(cx + dx, cy + dy, d !== 2 && d !== 4);
      }
    }
  }
  for (let i = 8; i < size - 8; i += 1) {
    set(6, i, i % 2 === 0);
    set(i, 6, i % 2 === 0);
  }
  const centres = alignments(version);
  const last = centres.length - 1;
  centres.forEach((ay, j) => centres.forEach((ax, i) => {
    if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return; // finders
    for (let dy = -2; dy <= 2; dy += 1) {
      for (let dx = -2; dx <= 2; dx += 1) set(ax + dx, ay + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
    }
  }));
  // Version information from version 7 on, BCH-coded, in two copies.
  if (version >= 7) {
    let vrem = version;
    for (let i = 0; i < 12; i += 1) vrem = (vrem << 1) ^ ((vrem >>> 11) * 0x1f25);
    const vbits = (version << 12) | vrem;
    for (let i = 0; i < 18; i += 1) {
      const on = ((vbits >>> i) & 1) === 1;
      set(size - 11 + (i % 3), Math.floor(i / 3), on);
      set(Math.floor(i / 3), size - 11 + (i % 3), on);
    }
  }
  // Format information: the level (M 00, L 01) and the mask, BCH-coded, two copies, plus the
  // dark module.
  const format = (LEVEL_BITS[level] << 3) | mask;
  let rem = format;
  for (let i = 0; i < 10; i += 1) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  const fbits = ((format << 10) | rem) ^ 0x5412;
  const bit = (i) => ((fbits >>> i) & 1) === 1;
  for (let i = 0; i <= 5; i += 1) set(8, i, bit(i));
  set(8, 7, bit(6));
  set(8, 8, bit(7));
  set(7, 8, bit(8));
  for (let i = 9; i < 15; i += 1) set(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i += 1) set(size - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i += 1) set(8, size - 15 + i, bit(i));
  set(8, size - 8, true);
  // Data, in two-column zigzags from the bottom right, skipping the vertical timing column.
  let i = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let vert = 0; vert < size; vert += 1) {
      for (let j = 0; j < 2; j += 1) {
        const x = right - j;
        const y = ((right + 1) & 2) === 0 ? size - 1 - vert : vert;
        if (fixed[y][x]) continue;
        const on = i < words.length * 8 && ((words[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
        dark[y][x] = on !== MASKS[mask](x, y);
        i += 1;
      }
    }
  }
  return dark;
}

function penalty(m) {
  const size = m.length;
  let score = 0;
  const lines = [...m, ...m[0].map((_, x) => m.map((row) => row[x]))];
  for (const line of lines) {
    let run = 1;
    for (let i = 1; i <= size; i += 1) {
      if (i < size && line[i] === line[i - 1]) run += 1;
      else {
        if (run >= 5) score += run - 2;
        run = 1;
      }
    }
    const s = line.map((d) => (d ? "1" : "0")).join("");
    for (const pattern of [/(?=10111010000)/g, /(?=00001011101)/g]) score += 40 * (s.match(pattern) || []).length;
  }
  for (let y = 0; y < size - 1; y += 1) {
    for (let x = 0; x < size - 1; x += 1) {
      const c = m[y][x];
      if (c === m[y][x + 1] && c === m[y + 1][x] && c === m[y + 1][x + 1]) score += 3;
    }
  }
  const darkCount = m.flat().filter(Boolean).length;
  score += 10 * Math.floor(Math.abs((darkCount * 100) / (size * size) - 50) / 5);
  return score;
}

// qrMatrix("ABCD") -> rows of booleans (true = dark). mask: force one (0-7) instead of the best;
// level: "M" (the default) or "L".
export function qrMatrix(text, { mask = null, level = "M" } = {}) {
  const bytes = [...new TextEncoder().encode(text)];
  let version = 1;
  while (version <= 40 && dataWords(version, level) * 8 < 4 + (version < 10 ? 8 : 16) + bytes.length * 8) version += 1;
  if (version > 40) throw new Error("text too long for a QR code");
  const words = codewords(bytes, version, level);
  if (mask !== null) return build(words, version, mask, level);
  let best = null;
  for (let k = 0; k < 8; k += 1) {
    const m = build(words, version, k, level);
    const score = penalty(m);
    if (!best || score < best.score) best = { m, score };
  }
  return best.m;
}

// An SVG document string of the code, with a quiet zone of `quiet` modules (4 by the standard; a
// code shown on a white card of its own reads with 2, and its modules get bigger).
export function qrSvg(text, { level = "M", quiet = 4 } = {}) {
  const m = qrMatrix(text, { level });
  const n = m.length + 2 * quiet;
  let path = "";
  m.forEach((row, y) => row.forEach((on, x) => {
    if (on) path += `M${x + quiet} ${y + quiet}h1v1h-1z`;
  }));
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${n} ${n}" shape-rendering="crispEdges">`
    + `<rect width="${n}" height="${n}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
}
