"""Behind a reverse proxy: the address a phone asked for, believed only from the proxy itself.

uvicorn's ProxyHeadersMiddleware takes the scheme (X-Forwarded-Proto) and the client
(X-Forwarded-For) from a trusted peer, but not the host: it leaves the Host header alone. Caddy
passes the phone's Host through unchanged, while other proxies (nginx by default) send their
upstream's address there and the phone's host in X-Forwarded-Host only. So a trusted peer's
X-Forwarded-Host replaces Host here, before uvicorn's middleware rewrites the client address.
"""

import ipaddress
import re
from typing import Any, cast

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

# A host name or address and an optional port: nothing that could smuggle a path or a scheme.
HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$")
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Proxies:
    """The peers trusted with forwarded headers: `*`, or addresses and networks, comma-separated
    (the syntax of uvicorn's --forwarded-allow-ips)."""

    def __init__(self, spec: str) -> None:
        items = [item.strip() for item in spec.split(",") if item.strip()]
        self.spec = ",".join(items)
        self.everyone = items == ["*"]
        self.networks: list[Network] = []
        for item in items:
            if item != "*":
                self.networks.append(ipaddress.ip_network(item, strict=False))

    def __contains__(self, host: str | None) -> bool:
        if self.everyone:
            return True
        try:
            address = ipaddress.ip_address(host or "")
        except ValueError:
            return False
        return any(address in network for network in self.networks)


class ForwardedHost:
    def __init__(self, app: ASGIApp, proxies: Proxies) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            client = scope.get("client")
            if client and client[0] in self.proxies:
                forwarded = [v for k, v in scope["headers"] if k == b"x-forwarded-host"]
                # The nearest proxy appends (or sets) the last value: the one it vouches for.
                host = forwarded[-1].decode("latin-1").split(",")[-1].strip() if forwarded else ""
                if HOST.match(host):
                    headers = [(k, v) for k, v in scope["headers"] if k != b"host"]
                    scope = {**scope, "headers": [(b"host", host.encode("latin-1")), *headers]}
        await self.app(scope, receive, send)


def behind(app: ASGIApp, proxies: Proxies) -> ASGIApp:
    """The app with every forwarded header (host, scheme, client) believed from `proxies` only."""
    # uvicorn types ASGI apps more narrowly than Starlette; both are the same callables.
    inner = ProxyHeadersMiddleware(cast(Any, app), trusted_hosts=proxies.spec or [])
    return ForwardedHost(cast(ASGIApp, inner), proxies)
