"""The worked examples of docs/protocol.md ("The log and its seed") hold: against the server's own
chance and hash chain, and against a re-implementation written from that page's text alone.

The numbers are read out of the page's fenced blocks (```text draw-example, shuffle-example,
hash-example), so a change to the page or to the code that makes them disagree fails here.
"""

import hashlib
import hmac
import json
import re
from pathlib import Path

import pytest

from server.rules.chance import Chance, redo
from server.rules.core import Context, Member
from server.rules.roster import CODE_ALPHABET, Roster, new_code
from server.store import chain

DOCS = Path(__file__).resolve().parents[1] / "docs"
# The wire contract: what all rulesets share, and each ruleset's page ("On the wire").
PAGES = [DOCS / "protocol.md", *sorted((DOCS / "rules").glob("*.md"))]


def block(name: str) -> list[str]:
    """The lines of the docs' one fenced block marked ```text <name>."""
    text = "\n".join(page.read_text("utf-8") for page in PAGES)
    found: list[str] = re.findall(rf"^```text {name}\n(.*?)^```$", text, re.M | re.S)
    assert len(found) == 1, f"the docs must hold exactly one ```text {name} block"
    return found[0].splitlines()


def fields(lines: list[str]) -> dict[str, str]:
    """`key: value` lines (a key may hold spaces); a key given twice keeps every value."""
    pairs = [line.split(": ", 1) for line in lines if ": " in line]
    return {key: value for key, value in pairs if key != "step"}


# -- a verifier's draws, from the page's words alone --------------------------------------------
# "HMAC-SHA256 with the key = the 32 raw bytes of the seed over the message" (stream:counter in
# ASCII decimal), "the MAC's first 8 bytes, read as an unsigned big-endian integer".


def message(stream: int, counter: int) -> bytes:
    return f"{stream}:{counter}".encode("ascii")


def mac(seed: bytes, stream: int, counter: int) -> bytes:
    return hmac.new(seed, message(stream, counter), hashlib.sha256).digest()


def number(seed: bytes, stream: int, counter: int) -> int:
    return int.from_bytes(mac(seed, stream, counter)[:8], "big")


def limit(bound: int) -> int:
    return 2**64 - 2**64 % bound


def below(seed: bytes, stream: int, counter: int, bound: int) -> tuple[int, int]:
    """The number below `bound` and the counter after it (rejected numbers are skipped)."""
    while True:
        value = number(seed, stream, counter)
        counter += 1
        if value < limit(bound):
            return value % bound, counter


def die(seed: bytes, stream: int, counter: int, sides: int) -> int:
    return below(seed, stream, counter, sides)[0] + 1


def shuffle_order(seed: bytes, stream: int, counter: int, n: int) -> list[int]:
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j, counter = below(seed, stream, counter, i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def code(seed: bytes, stream: int, taken: set[str]) -> str:
    """Four base-25 digits of a number below 25**4, most significant first; taken: next try."""
    counter = 0
    while True:
        value, counter = below(seed, stream, counter, 25**4)
        digits = [value // 25**k % 25 for k in (3, 2, 1, 0)]
        written = "".join("ACDEFGHJKMNPQRTUVWXY34679"[d] for d in digits)
        if written not in taken:
            return written


# -- the die ----------------------------------------------------------------------------------


def test_the_die_example_is_what_the_page_says_a_verifier_computes() -> None:
    example = fields(block("draw-example"))
    seed = bytes.fromhex(example["seed"])
    stream, counter, sides = int(example["stream"]), int(example["counter"]), int(example["sides"])
    assert hashlib.sha256(example["seed text"].encode()).digest() == seed
    assert len(seed) == 32  # the key is the raw bytes, not the 64 hex characters
    assert message(stream, counter) == example["message"].encode("ascii")
    assert message(stream, counter).hex() == example["message bytes"]
    assert mac(seed, stream, counter).hex() == example["mac"]
    assert mac(seed, stream, counter)[:8].hex() == example["first 8 bytes"]
    assert number(seed, stream, counter) == int(example["number"])
    assert limit(sides) == int(example["limit"]) and int(example["number"]) < limit(sides)
    assert int(example["number"]) % sides == int(example["number mod sides"])
    assert die(seed, stream, counter, sides) == int(example["die"])
    # The hex text as the key gives another MAC: the page's "raw bytes" matters.
    text_key = hmac.new(example["seed"].encode(), message(stream, counter), hashlib.sha256)
    assert text_key.hexdigest() != example["mac"]


def test_the_server_rolls_the_die_of_the_example_and_records_its_chance() -> None:
    example = fields(block("draw-example"))
    seed, stream = bytes.fromhex(example["seed"]), int(example["stream"])
    chance = Chance(seed, stream, int(example["counter"]))
    assert chance.number() == int(example["number"])
    chance = Chance(seed, stream, int(example["counter"]))
    assert chance.die(int(example["sides"])) == int(example["die"])
    recorded = chance.record()
    assert recorded == json.loads(example["chance"])
    assert redo(seed, recorded) == recorded["draws"]


# -- the shuffle ------------------------------------------------------------------------------


def steps(lines: list[str]) -> list[tuple[str, str, int, int, int, int, list[int]]]:
    """`step: <message> <first 8 bytes> <number> <i> <bound> <j> <order after the swap>`."""
    parsed = []
    for line in lines:
        if line.startswith("step: "):
            said, first8, value, i, bound, j, order = line[6:].split(" ", 6)
            parsed.append((said, first8, int(value), int(i), int(bound), int(j), json.loads(order)))
    return parsed


def test_the_shuffle_example_is_fisher_yates_from_the_end_as_the_page_says() -> None:
    lines = block("shuffle-example")
    example = fields(lines)
    seed, stream = bytes.fromhex(example["seed"]), int(example["stream"])
    start = int(example["from"])
    items = example["items"].split()
    order = list(range(len(items)))
    counter = start
    walked = steps(lines)
    assert len(walked) == len(items) - 1  # n - 1 numbers, none of them rejected here
    for (said, first8, value, i, bound, j, after), expected_i in zip(
        walked, range(len(items) - 1, 0, -1), strict=True
    ):
        assert said.encode() == message(stream, counter)
        assert mac(seed, stream, counter)[:8].hex() == first8
        assert number(seed, stream, counter) == value < limit(bound)
        assert (i, bound) == (expected_i, expected_i + 1)
        assert value % bound == j
        order[i], order[j] = order[j], order[i]
        assert order == after
        counter += 1
    assert order == json.loads(example["order"])
    assert shuffle_order(seed, stream, start, len(items)) == order
    # `order` says where each item comes from: shuffled[k] = before[order[k]].
    assert [items[k] for k in order] == example["shuffled"].split()


def test_the_server_shuffles_as_the_example_and_records_its_chance() -> None:
    example = fields(block("shuffle-example"))
    seed, stream = bytes.fromhex(example["seed"]), int(example["stream"])
    chance = Chance(seed, stream, int(example["from"]))
    assert chance.shuffle(example["items"].split()) == example["shuffled"].split()
    recorded = chance.record()
    assert recorded == json.loads(example["chance"])
    assert redo(seed, recorded) == recorded["draws"]


# -- the rest of "Draws from the seed" ----------------------------------------------------------


class Rigged(Chance):
    """The server's chance fed chosen numbers: a rejection almost never happens by itself."""

    def __init__(self, numbers: list[int]) -> None:
        super().__init__(b"", 0)
        self.numbers = numbers

    def number(self) -> int:
        self.counter += 1
        return self.numbers.pop(0)


def test_the_server_rejects_numbers_from_the_pages_limit_on() -> None:
    sides = int(fields(block("draw-example"))["sides"])
    at_limit, under = limit(sides), limit(sides) - 1  # the first taken is the one under
    rigged = Rigged([at_limit, 2**64 - 1, under])
    assert rigged.die(sides) == under % sides + 1
    assert rigged.counter == 3  # the rejected numbers count too
    assert limit(4) == 2**64 and Rigged([2**64 - 1]).die(4) == 4  # a power of two: no rejection


@pytest.mark.parametrize("sides", [2, 3, 6, 10, 20, 52])
def test_dice_from_the_page_match_the_server_over_many_counters(sides: int) -> None:
    seed = bytes.fromhex(fields(block("draw-example"))["seed"])
    for stream in (1, 7, 1203):
        chance = Chance(seed, stream)
        rolled = [chance.die(sides) for _ in range(50)]
        assert rolled == [die(seed, stream, n, sides) for n in range(50)]  # no rejection here
        assert set(rolled) <= set(range(1, sides + 1))


def test_member_codes_are_drawn_as_the_page_says() -> None:
    seed = bytes.fromhex(fields(block("draw-example"))["seed"])
    assert CODE_ALPHABET == "ACDEFGHJKMNPQRTUVWXY34679"
    organizer = Member("p2", "Organizer", "organizer", None, "AAAA")
    for stream in (2, 3, 40):
        first = code(seed, stream, set())
        ctx = Context(now=0, actor=organizer, seq=stream, seed=seed)
        assert new_code(Roster(), ctx) == first
        # Its first try taken: the next number of the same stream.
        taken = Roster(codes={first: "p2"})
        ctx = Context(now=0, actor=organizer, seq=stream, seed=seed)
        assert new_code(taken, ctx) == code(seed, stream, {first}) != first


# -- the hash ---------------------------------------------------------------------------------


def test_the_hash_example_is_the_canonical_json_the_page_describes() -> None:
    example = fields(block("hash-example"))
    line = json.loads(example["line"])
    canonical = example["canonical"].encode("utf-8")
    assert "š".encode() in canonical and b"\\u" not in canonical  # raw UTF-8, never escaped
    written = json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert written.encode("utf-8") == canonical
    assert hashlib.sha256(canonical).hexdigest() == example["sha256"]
    # The server's chain writes the same bytes and hash, and a sealed line keeps that hash.
    assert chain.canonical(line) == canonical
    assert chain.digest(line) == example["sha256"]
    assert chain.digest({**line, "hash": "anything"}) == example["sha256"]
