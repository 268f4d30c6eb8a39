"""Reading bodies: a control character in any string is refused, however the JSON spells it."""

import json

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.rules.core import RuleError
from server.web.wire import MAX_DEPTH, no_controls, parse_json

KEYS = st.text(max_size=4)
BODIES = st.dictionaries(
    KEYS,
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
        max_leaves=8,
    ),
    max_size=4,
)


def refused(check: object, *args: object) -> bool:
    try:
        check(*args)  # type: ignore[operator]
    except RuleError as error:
        assert error.code == "invalid"
        return True
    return False


@given(BODIES)
def test_parse_json_refuses_exactly_what_has_a_control_character(body: dict[str, object]) -> None:
    has_one = refused(no_controls, body)
    spellings = [
        orjson.dumps(body),  # raw UTF-8, escapes only where JSON must
        orjson.dumps(body).decode(),
        json.dumps(body),  # every non-ASCII character escaped
        json.dumps(body, ensure_ascii=False),
    ]
    for raw in spellings:
        assert refused(parse_json, raw) == has_one, raw


@pytest.mark.parametrize("text", ["\x00", "\x1f", "\x7f", "\x85", "\x9f", "a\nb"])
def test_each_kind_of_control_character_is_refused(text: str) -> None:
    for raw in (orjson.dumps({"name": text}), json.dumps({text: 1}, ensure_ascii=False)):
        assert refused(parse_json, raw)


@pytest.mark.parametrize("escape", ["", r"\\", r"\u0041"])
def test_a_body_is_nested_at_most_max_depth_deep_however_deep_it_comes(escape: str) -> None:
    def nested(levels: int) -> str:  # an object, and arrays in it
        inner = "[" * (levels - 1) + "]" * (levels - 1)
        return f'{{"s": "x{escape}", "a": {inner}}}'

    assert not refused(parse_json, nested(MAX_DEPTH))
    for levels in (MAX_DEPTH + 1, 1000, 1024, 1025, 5000):
        with pytest.raises(RuleError) as refusal:
            parse_json(nested(levels))
        assert refusal.value.code == "invalid"
        assert "nested deeper" in refusal.value.message or "malformed" in refusal.value.message
