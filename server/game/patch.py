"""RFC 7396 JSON merge patches: the change between two views, and applying one.

A key whose value is null and a missing key mean the same in a view, so a patch's null both
deletes a key and sets it to null.
"""

from typing import Any

from server.rules.core import Json

_MISSING: Any = object()


def diff(old: Json, new: Json) -> Json:
    """The merge patch that turns `old` into `new` (empty when they are the same)."""
    return {} if new == old else changes(old, new)


def changes(old: Json, new: Json) -> Json:
    """`diff` without comparing the two whole first: for views that have most likely changed
    (a touched viewer's). Each pair of values is compared in C before it is gone through here:
    most of a view is as it was."""
    patch: Json = {}
    kept = 0  # the keys of `new` that `old` has too: all of old's, unless some went
    get = old.get
    for key, value in new.items():
        before = get(key, _MISSING)
        if before is _MISSING:
            if value is not None:
                patch[key] = value
            continue
        kept += 1
        if value is before or value == before:  # unchanged (the same object: a shared part)
            continue
        if type(value) is dict and type(before) is dict:  # views hold plain dicts only
            if inner := changes(before, value):
                patch[key] = inner
        else:
            patch[key] = value  # None too: a merge patch's null deletes
    if kept < len(old):
        for key, before in old.items():
            if key not in new and before is not None:
                patch[key] = None
    return patch


def bare(value: Any) -> Any:
    """A view as a patched one holds it: without the keys whose value is null."""
    if isinstance(value, dict):
        return {k: bare(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [bare(v) for v in value]
    return value


def apply(target: Any, patch: Any) -> Any:
    """The result of applying `patch` to `target` (neither is changed)."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply(result.get(key), value)
    return result
