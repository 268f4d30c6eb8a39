// One shared tick for the page's periodic work (socket silence, outbox expiry, countdowns,
// retries): a phone that wakes once a second for all of them, not once per timer, lasts a
// 3-hour game on one charge. The tick comes once a second; a subscriber may ask for the next one
// sooner (a countdown on screen, to turn its second on time), and idle it falls back to 1 s.
const PERIOD_MS = 1000;
const work = new Set();
let timer = null;
let due = Infinity; // performance.now() of the next tick

function schedule(ms) {
  const at = performance.now() + ms;
  if (timer !== null && at >= due) return;
  clearTimeout(timer);
  due = at;
  timer = setTimeout(run, ms);
}

function run() {
  timer = null;
  due = Infinity;
  if (work.size) schedule(PERIOD_MS); // a subscriber may ask for sooner below
  for (const fn of [...work]) {
    try {
      fn();
    } catch (err) {
      console.error(err); // one failing subscriber does not stop the others' work
    }
  }
}

// fn() on every tick; returns the function that unsubscribes it.
export function onTick(fn) {
  work.add(fn);
  if (timer === null) schedule(PERIOD_MS);
  return () => work.delete(fn);
}

// fn() on the first tick at least `ms` after the last call: a slower period on the same tick.
export function every(ms, fn) {
  let last = performance.now();
  return onTick(() => {
    const now = performance.now();
    if (now - last < ms) return;
    last = now;
    fn();
  });
}

// The next tick no later than `ms` from now (it then goes on once a second).
export function tickWithin(ms) {
  schedule(Math.max(0, ms));
}
