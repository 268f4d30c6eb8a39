"""Imports point down the layers (docs/architecture.md): a lower layer that imports a higher one
fails here, with the line that does it."""

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[1] / "server"
# What each layer may import of the server besides itself.
MAY_IMPORT = {
    "clock": set(),
    "rules": {"clock"},
    "store": {"clock"},
    "game": {"clock", "rules", "store"},
    "log": {"clock", "rules", "store"},
    "web": {"clock", "rules", "store", "game", "log"},
    "serve": {"clock", "rules", "store", "game", "log", "web"},
}


def layer_of(module: str) -> str | None:
    """`server.web.api` -> "web"; `server.clock` -> "clock"; None outside the server."""
    parts = module.split(".")
    return parts[1] if parts[0] == "server" and len(parts) > 1 else None


def imports(path: Path) -> list[tuple[int, str]]:
    """Every server module a file imports, with its line (inside functions too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            found += [(node.lineno, n if node.module == "server" else node.module) for n in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, module) for line, module in found if module.startswith("server")]


def crossings(root: Path) -> list[str]:
    wrong = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        own = relative.parts[0].removesuffix(".py")
        if own == "__init__":
            continue
        for line, module in imports(path):
            target = layer_of(module)
            if target is not None and target != own and target not in MAY_IMPORT[own]:
                wrong.append(f"server/{relative}:{line} ({own}) imports {module} ({target})")
    return wrong


def test_every_top_level_entry_is_a_layer() -> None:
    entries = {  # (beside them: the compiled modules' build, server/__init__.py)
        p.name.removesuffix(".py")
        for p in SERVER.iterdir()
        if (p.is_dir() and p.name != "__pycache__") or p.suffix == ".py"
    }
    assert entries - {"__init__"} == set(MAY_IMPORT)
    assert len(entries) <= 8


def test_no_layer_imports_a_higher_one() -> None:
    assert crossings(SERVER) == []


def test_a_lower_layer_importing_a_higher_one_is_caught(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "bad.py").write_text("from server.rules.core import RuleError\n")
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "worse.py").write_text("def f():\n    import server.web.app\n")
    assert crossings(tmp_path) == [
        "server/rules/worse.py:2 (rules) imports server.web.app (web)",
        "server/store/bad.py:1 (store) imports server.rules.core (rules)",
    ]


@pytest.mark.parametrize("layer", sorted(MAY_IMPORT))
def test_each_layer_names_only_layers(layer: str) -> None:
    assert MAY_IMPORT[layer] <= set(MAY_IMPORT) - {layer}


def raw_reads(source: str) -> list[int]:
    """The lines where a rule reads an event's raw line (`<x>.data[...]`) instead of its typed
    fact, outside an upcaster (whose work is the raw line)."""
    found = []
    for func in ast.walk(ast.parse(source)):
        if isinstance(func, ast.FunctionDef) and not func.name.startswith("upcast"):
            found += [
                node.lineno
                for node in ast.walk(func)
                if isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "data"
            ]
    return sorted(set(found))


def test_the_rules_read_typed_facts_not_raw_lines() -> None:
    found = {
        str(path.relative_to(SERVER)): lines
        for path in sorted((SERVER / "rules").rglob("*.py"))
        if (lines := raw_reads(path.read_text(encoding="utf-8")))
    }
    assert found == {}
    # (the check sees one: a view that reads a part's tree off the raw line)
    assert raw_reads("def on(event):\n    return event.data['tree']\n") == [2]
    assert raw_reads("def upcast_x(event):\n    return event.data['tree']\n") == []
