"""Whose page opened a WebSocket: a browser says so in `Origin`, and only our own may.

A browser lets any page open a WebSocket to any server, and sends the page's origin along; the
server alone can refuse. Our own origin is the host the socket was reached at (its `Host`, which
a trusted proxy's X-Forwarded-Host has replaced: see server/web/forwarded.py) or --public-url.
Clients that send no `Origin` (native apps, scripts, tests) are not browsers, and pass.

Also what a console is told of the route its invites take to the phones (`route`), and the
field CA page's address, checked (`ca_page`).
"""

import ipaddress
import re
from urllib.parse import urlsplit

from server.web.forwarded import HOST

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


def loopback(host: str) -> bool:
    """Whether a host name or address is this machine's own: no phone reaches it."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: assume others resolve it too


def route(join_origin: str, ca_page: str | None) -> str:
    """How phones reach the join links: `field-ca` (they trust the laptop's own CA first, from
    `ca_page`), `loopback` (they do not: this machine only), `insecure` (plain http: no secure
    context), else `trusted` (https with a certificate they trust already)."""
    if ca_page:
        return "field-ca"
    parts = urlsplit(join_origin)
    host = (parts.hostname or "").lower()
    if loopback(host) or host.endswith(".localhost"):  # browsers resolve *.localhost to loopback
        return "loopback"
    return "insecure" if parts.scheme == "http" else "trusted"


UNSAFE = re.compile(r"[\x00-\x20\x7f]")  # spaces and control characters: no URL holds them raw


def ca_page(text: str) -> str:
    """`--field-ca-page`: an http:// or https:// URL with a host, kept as given; else ValueError
    saying so."""
    wrong = ValueError(f"{text!r} is not an http:// or https:// URL with a host")
    if UNSAFE.search(text):
        raise wrong
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - a port that is not a number or out of range raises
    except ValueError:
        raise wrong from None
    if parts.scheme not in ("http", "https") or not text.startswith(parts.scheme + "://"):
        raise wrong
    if not parts.hostname or not HOST.match(parts.netloc):  # no user:password@ either
        raise wrong
    return text
