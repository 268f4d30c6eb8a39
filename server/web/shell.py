"""The PWA's files as phones get them: read once at start, gzipped once, under a version prefix.

Every file is served at `v/<version>/<path>`, the version being a hash of the whole tree, with a
one-year immutable cache policy: a phone downloads a file once per version, and the relative
imports of the ES modules stay inside the prefix with no build step. The entry points keep
their addresses and are revalidated on every use (ETag): `/` (index.html, its links rewritten
into the prefix), `sw.js` (the version and the worker's shell list written in) and the
manifest. The shell the worker keeps for offline use is what index.html links, followed
through static imports; a module a screen loads with import() is kept when first used. The first
module the page runs, js/boot.js, gets what it preloads written in (the shell's modules, and per
ruleset its screens' static imports and words), so a first load on a weak signal waits for few
round trips (bench/firstload.py). js/rulesets.js gets the rulesets that bring a stylesheet
(`js/rulesets/<id>/styles.css`) written in: it links one when that ruleset's part loads.
"""

import gzip
import hashlib
import json
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
ENTRY_POINTS = ("index.html", "sw.js", "manifest.webmanifest")
MEDIA_TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".md": "text/markdown",
}
COMPRESSIBLE = ("text/", "application/json", "application/manifest+json", "image/svg+xml")
LINK = re.compile(r'\b(href|src)="([^":#?]+)"')
STATIC_IMPORT = re.compile(r'(?m)^\s*(?:import|export)\s+(?:[^;"\'`()]*?\bfrom\s*)?"([^"]+)"')
BOOT = "js/boot.js"  # the first module the page runs: it asks for the view and preloads
SCREENS = re.compile(r"^js/rulesets/([^/]+)/screens\.js$")
RULESETS = "js/rulesets.js"  # loads a ruleset's parts, and links its styles
STYLES = re.compile(r"^js/rulesets/([^/]+)/styles\.css$")


@dataclass(frozen=True)
class Asset:
    body: bytes
    gzipped: bytes | None  # None where gzip does not pay (an image, a tiny file)
    media_type: str
    digest: str

    @classmethod
    def of(cls, body: bytes, media_type: str) -> "Asset":
        packed = gzip.compress(body, 9, mtime=0) if media_type.startswith(COMPRESSIBLE) else None
        worth = packed is not None and len(packed) < len(body) * 0.9
        digest = hashlib.sha256(body).hexdigest()[:16]
        return cls(body, packed if worth else None, media_type, digest)

    def response(self, request: Request, cache_control: str) -> Response:
        packed = self.gzipped if self.gzipped is not None and accepts_gzip(request) else None
        etag = f'"{self.digest}-gz"' if packed is not None else f'"{self.digest}"'
        headers = {"Cache-Control": cache_control, "ETag": etag}
        if self.gzipped is not None:
            headers["Vary"] = "Accept-Encoding"
        if etag in matching_tags(request):
            return Response(status_code=304, headers=headers)
        if packed is not None:
            headers["Content-Encoding"] = "gzip"
        return Response(self.body if packed is None else packed, 200, headers, self.media_type)


def accepts_gzip(request: Request) -> bool:
    for part in request.headers.get("accept-encoding", "").split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            return params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def matching_tags(request: Request) -> set[str]:
    tags = request.headers.get("if-none-match", "").split(",")
    return {tag.strip().removeprefix("W/") for tag in tags}


def files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not any(part.startswith(".") for part in path.parts)
    }


class Shell:
    """The PWA's tree in memory, served at versioned and at plain addresses."""

    def __init__(self, root: Path, mounted: Mapping[str, Path] | None = None) -> None:
        """`mounted`: more folders, each served under its path in the tree (a ruleset's phone
        side that lives outside it: `js/rulesets/<id>`)."""
        sources = files(root)
        for at, folder in (mounted or {}).items():
            sources.update({f"{at}/{name}": body for name, body in files(folder).items()})
        tree = hashlib.sha256()
        for name, body in sources.items():
            tree.update(name.encode() + b"\0" + hashlib.sha256(body).digest())
        self.version = tree.hexdigest()[:12]
        self.prefix = f"v/{self.version}/"
        sources["index.html"] = self.linked(sources["index.html"].decode()).encode()
        self.shell = self.offline_shell(sources)
        build = {"version": self.version, "shell": self.shell}
        sources["sw.js"] = filled(sources, "sw.js", "BUILD", build)
        sources[BOOT] = filled(sources, BOOT, "PRELOAD", self.preload(sources))
        styled = sorted(m.group(1) for name in sources if (m := STYLES.match(name)))
        sources[RULESETS] = filled(sources, RULESETS, "STYLED", styled)
        self.assets = {
            name: Asset.of(body, MEDIA_TYPES.get(Path(name).suffix, "application/octet-stream"))
            for name, body in sources.items()
        }

    def linked(self, index: str) -> str:
        """index.html with its links to the tree's files moved into the version prefix."""

        def move(link: re.Match[str]) -> str:
            attribute, target = link.groups()
            if target in ENTRY_POINTS:
                return link.group(0)
            return f'{attribute}="{self.prefix}{target}"'

        return LINK.sub(move, index)

    def preload(self, sources: dict[str, bytes]) -> dict[str, object]:
        """What boot.js asks for at once rather than one import level a round trip (addresses
        from the page, under the version prefix): `shell`, every module of the shell, asked
        for once boot.js has sent its request for the view (on a slow line those modules would
        otherwise share the bandwidth with boot.js itself and hold the view back); `rulesets`,
        per ruleset folder, its screens with their static imports that the shell does not
        hold, and its words per language, asked for once a game's ruleset is known."""
        skip = {"./sw.js", f"./{self.prefix}{BOOT}"}
        modules = [n for n in self.shell if n.endswith(".js") and n not in skip]
        words = {lang: f"./{self.prefix}i18n/{lang}.json" for lang in languages(sources)}
        return {"shell": modules, "words": words, "rulesets": self.chains(sources)}

    def offline_shell(self, sources: dict[str, bytes]) -> list[str]:
        """What the worker installs: `./`, and what index.html links with its static imports."""
        links = [m.group(2) for m in LINK.finditer(sources["index.html"].decode())]
        found = closure(sources, [link.removeprefix(self.prefix) for link in links])
        found += [f"i18n/{lang}.json" for lang in languages(sources)]  # i18n.js fetches them
        return ["./", *(f"./{n if n in ENTRY_POINTS else self.prefix + n}" for n in found)]

    def chains(self, sources: dict[str, bytes]) -> dict[str, dict[str, object]]:
        """Per ruleset folder: `modules`, its screens.js with their static imports that the shell
        does not hold, and `words`, its word file per language."""
        shell = set(self.shell)
        langs = languages(sources)
        found: dict[str, dict[str, object]] = {}
        for name in sources:
            screens = SCREENS.match(name)
            if not screens:
                continue
            folder = posixpath.dirname(name)
            modules = [f"./{self.prefix}{n}" for n in closure(sources, [name])]
            words = {lang: f"{folder}/{lang}.json" for lang in langs}
            found[screens.group(1)] = {
                "modules": [m for m in modules if m not in shell],
                "words": {lang: f"./{self.prefix}{f}" for lang, f in words.items() if f in sources},
            }
        return found

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/v/{version}/{path:path}", self.versioned, methods=["GET"]),
            Route("/{path:path}", self.plain, methods=["GET"]),
        ]

    def asset(self, path: str) -> Asset:
        found = self.assets.get(path or "index.html")
        if found is None:
            raise HTTPException(404, f"no file {path}")
        return found

    async def versioned(self, request: Request) -> Response:
        path = request.path_params["path"]
        # Another version's address (a page opened before a restart) gets today's file, which
        # must not be kept for a year under that address.
        current = request.path_params["version"] == self.version
        return self.asset(path).response(request, IMMUTABLE if current else REVALIDATE)

    async def plain(self, request: Request) -> Response:
        return self.asset(request.path_params["path"]).response(request, REVALIDATE)


def filled(sources: dict[str, bytes], name: str, const: str, value: object) -> bytes:
    """A module with its one `const <const> = …;` line written in by the server at start."""
    line = re.compile(rf"(?m)^const {const} = .*;$")
    text, found = line.subn(
        f"const {const} = {json.dumps(value, sort_keys=True)};", sources[name].decode()
    )
    if found != 1:
        raise ValueError(f"{name} has no `const {const} = …;` line for the server to fill in")
    return text.encode()


def languages(sources: dict[str, bytes]) -> list[str]:
    """The languages of the shell's words (i18n/<lang>.json)."""
    return sorted(m.group(1) for n in sources if (m := re.match(r"^i18n/(\w+)\.json$", n)))


def closure(sources: dict[str, bytes], starts: list[str]) -> list[str]:
    """The files named, with what their ES modules import statically, in order of discovery."""
    found: list[str] = []
    todo = list(starts)
    while todo:
        name = todo.pop(0)
        if name in found or name not in sources:
            continue
        found.append(name)
        if name.endswith(".js"):
            here = posixpath.dirname(name)
            for spec in STATIC_IMPORT.findall(sources[name].decode()):
                todo.append(posixpath.normpath(posixpath.join(here, spec)))
    return found
