"""Whose page opened a WebSocket: a browser says so in `Origin`, and only our own may.

A browser lets any page open a WebSocket to any server, and sends the page's origin along; the
server alone can refuse. Our own origin is the host the socket was reached at (its `Host`, which
a trusted proxy's X-Forwarded-Host has replaced: see server/web/forwarded.py) or --public-url.
Clients that send no `Origin` (native apps, scripts, tests) are not browsers, and pass.
"""

from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def netloc(url: str) -> tuple[str, int] | None:
    """An origin's host (lowercase) and port, the scheme's default filled in; None if it is
    not an http(s) origin (such as `null`)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.hostname.lower(), port or DEFAULT_PORTS[parts.scheme]


def own(origin: str | None, host: str | None, public_url: str | None) -> bool:
    """May a page of `origin` open this socket? The host is compared with the port (a page of
    another port is another origin), the scheme is not: behind a proxy that terminates TLS the
    server itself cannot tell http from https."""
    if origin is None:
        return True
    seen = netloc(origin)
    if seen is None:
        return False
    scheme = urlsplit(origin).scheme
    ours = [netloc(f"{scheme}://{host}")] if host else []
    if public_url:
        ours.append(netloc(public_url))
    return seen in ours
