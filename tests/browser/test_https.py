"""Phones through the real Caddy on a name that is not loopback (bijse.test, mapped to 127.0.0.1
by Chromium's resolver rules), trusting the proxy's CA through an NSS db in a HOME of their own:
the field laptop (deploy/field.sh), plain http on that name, and two instances on one PostgreSQL
behind deploy/Caddyfile, one of them killed mid-duel."""

import hashlib
import hmac
import os
import random
import re
import signal
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Page, Playwright, WebSocketRoute, expect
from playwright.async_api import Error as PlaywrightError

from tests.acme import certificate, pebble
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, phones
from tests.browser.helpers import (
    STUN_CARD,
    WOUND_CARD,
    Phone,
    challenge_on_phone,
    events,
    kept_offline,
    new_game,
    pick,
    server_view,
    shot,
)
from tests.conftest import free_port
from tests.proxy import NAME, field_caddy, field_script, serve, stop


@asynccontextmanager
async def trusting_browser(
    pw: Playwright, ca: Path, home: Path, resolver: str | None = None
) -> AsyncIterator[Browser]:
    """Chromium that trusts `ca` (Linux Chromium reads the NSS db in $HOME/.pki/nssdb: certutil
    from libnss3-tools writes it) and resolves NAME to 127.0.0.1, or, given a `resolver`, asks
    that DNS server for every name as a phone asks its network's (Chromium has no flag for it:
    it runs in a mount namespace of its own whose /etc/resolv.conf names the resolver)."""
    executable, rules = str(CHROMIUM), [f"--host-resolver-rules=MAP {NAME} 127.0.0.1"]
    if resolver is not None:
        resolv = home / "resolv.conf"
        resolv.parent.mkdir(parents=True, exist_ok=True)
        resolv.write_text(f"nameserver {resolver}\noptions timeout:1 attempts:1\n")
        wrapper = home / "chromium-with-resolver"
        wrapper.write_text(
            "#!/bin/sh\nexec unshare --mount sh -c "
            '\'mount --bind "$0" /etc/resolv.conf && exec "$@"\' '
            f'"{resolv}" "{CHROMIUM}" "$@"\n'
        )
        wrapper.chmod(0o755)
        executable, rules = str(wrapper), []
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True, exist_ok=True)
    for args in (
        ["-N", "--empty-password"],
        ["-A", "-n", "bijse-test-ca", "-t", "C,,", "-i", str(ca)],
    ):
        subprocess.run(["certutil", "-d", f"sql:{nssdb}", *args], check=True, capture_output=True)
    browser = await pw.chromium.launch(
        executable_path=executable,
        args=[*CHROMIUM_ARGS, *rules],
        env={**os.environ, "HOME": str(home)},
    )
    try:
        yield browser
    finally:
        await browser.close()


def sockets(page: Page) -> list[str]:
    """The URL of every WebSocket the page opens, in order."""
    opened: list[str] = []
    page.on("websocket", lambda ws: opened.append(ws.url))
    return opened


async def join(make: Phone, player: dict[str, Any], **options: Any) -> tuple[Page, list[str]]:
    page = await (await make(**options)).new_page()
    opened = sockets(page)
    await page.goto(player["join_url"])
    await expect(page.get_by_test_id("my-code")).to_have_text(player["code"])
    return page, opened


@pytest.fixture(scope="module")
async def field(
    pw: Playwright, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[dict[str, Any]]:
    """deploy/field.sh for NAME on high ports, and a browser that trusts its CA."""
    tmp = tmp_path_factory.mktemp("field")
    port, http_port, https_port = free_port(), free_port(), free_port()
    async with field_script(tmp / "state", port, http_port, https_port):
        ca = tmp / "state" / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
        async with trusting_browser(pw, ca, tmp / "home") as browser:
            key = (tmp / "state" / "admin-key").read_text().strip()
            yield {
                "browser": browser,
                "server": f"http://127.0.0.1:{port}",
                "https": f"https://{NAME}:{https_port}",
                "admin": {"Authorization": f"Bearer {key}"},  # field.sh closes game creation
            }


async def test_phones_duel_over_https_through_the_field_proxy(
    pw: Playwright, field: dict[str, Any]
) -> None:
    async with (
        httpx.AsyncClient(base_url=field["server"], headers=field["admin"]) as api,
        phones(pw, field["browser"], field["https"]) as make,
    ):
        game = await new_game(api, ["Alice", "Bob"])
        alice, bob = game["players"]["Alice"], game["players"]["Bob"]
        # The server was told its public address: the invites carry it, not 127.0.0.1.
        assert alice["join_url"].startswith(f"{field['https']}/#/join/")
        a, a_sockets = await join(make, alice)
        b, _ = await join(make, bob)
        assert await a.evaluate("window.isSecureContext") is True
        await a.wait_for_function("() => navigator.serviceWorker.controller !== null")
        await b.wait_for_function("() => navigator.serviceWorker.controller !== null")
        assert a_sockets and all(u.startswith(f"wss://{NAME}:") for u in a_sockets), a_sockets
        await expect(a.get_by_test_id("insecure-banner")).to_have_count(0)

        await challenge_on_phone(a, bob["code"])
        await expect(b.get_by_test_id("duel")).to_be_visible()
        await pick(a, STUN_CARD)
        await pick(b, WOUND_CARD)
        await expect(a.get_by_test_id("reveal")).to_be_visible()
        await expect(b.get_by_test_id("reveal")).to_be_visible()
        await shot(b, "30-https-reveal")
        await b.get_by_test_id("reveal-ok").click()
        await expect(b.get_by_test_id("stun-screen")).to_be_visible()

        # No signal: the service worker gives the shell, the app its last view (the stun).
        context = b.context

        async def dead(ws: WebSocketRoute) -> None:
            await ws.close(code=1001)

        await kept_offline(b)
        await context.route_web_socket(re.compile(r"/ws/games/"), dead)
        await context.set_offline(True)
        await b.reload()
        await expect(b.get_by_test_id("stun-screen")).to_be_visible()
        await expect(b.get_by_test_id("connection")).to_have_text("bez signálu")
        await shot(b, "31-https-offline-reload")


async def test_plain_http_on_a_lan_name_shows_the_banner_and_the_console_warns(
    pw: Playwright, field: dict[str, Any], live_server: str
) -> None:
    port = live_server.rsplit(":", 1)[1]
    async with (
        httpx.AsyncClient(base_url=live_server) as api,
        phones(pw, field["browser"], f"http://{NAME}:{port}") as make,
    ):
        game = await new_game(api, ["Alice"])
        alice = game["players"]["Alice"]
        page = await (await make()).new_page()
        await page.goto(f"http://{NAME}:{port}/#/join/{game['gid']}/{alice['token']}")
        await expect(page.get_by_test_id("my-code")).to_have_text(alice["code"])
        assert await page.evaluate("window.isSecureContext") is False
        await expect(page.get_by_test_id("insecure-banner")).to_contain_text("https")
        await shot(page, "32-http-insecure-banner")
        # The organizer on the same plain-http name: the invites would be plain http.
        console = await (await make()).new_page()
        await console.goto(f"http://{NAME}:{port}/#/join/{game['gid']}/{game['org']}")
        warning = console.get_by_test_id("invite-address-warning")
        await expect(warning).to_have_attribute("data-problem", "insecure")
        await expect(warning).to_contain_text(f"http://{NAME}:{port}")
        await shot(console, "33-console-invites-insecure")
        # On loopback, where the README used to send the organizer: no phone gets there.
        local = await (await make(base_url=live_server)).new_page()
        await local.goto(f"/#/join/{game['gid']}/{game['org']}")
        warning = local.get_by_test_id("invite-address-warning")
        await expect(warning).to_have_attribute("data-problem", "loopback")
        await expect(local.get_by_test_id("insecure-banner")).to_have_count(0)
        # Through the field proxy (https, its public address): no warning.
        async with httpx.AsyncClient(base_url=field["server"], headers=field["admin"]) as field_api:
            there = await new_game(field_api, [])
        proxied = await (await make(base_url=field["https"])).new_page()
        async with proxied.expect_response(lambda r: "/api/join-origin" in r.url) as asked:
            await proxied.goto(f"{field['https']}/#/join/{there['gid']}/{there['org']}")
            await expect(proxied.get_by_test_id("game-status")).to_be_visible()
        answer = await asked.value
        assert answer.ok and (await answer.json())["join_origin"] == field["https"]
        await answer.finished()
        await proxied.evaluate("() => new Promise(requestAnimationFrame)")  # the page has drawn it
        await expect(proxied.get_by_test_id("invite-address-warning")).to_have_count(0)


async def test_two_instances_on_one_postgres_one_killed_mid_duel(
    pw: Playwright, postgres_url: str, tmp_path: Path
) -> None:
    ports = [free_port(), free_port()]
    http_port, https_port = free_port(), free_port()
    origin = f"https://{NAME}:{https_port}"
    servers = []
    try:
        for i, port in enumerate(ports):  # one after the other: the first one migrates
            options = ("--public-url", origin, "--open-creation")  # the test makes its games
            servers.append(await serve(port, postgres_url, tmp_path / f"s{i}.log", *options))
        async with (
            field_caddy(tmp_path / "caddy", ports, http_port, https_port) as ca,
            trusting_browser(pw, ca, tmp_path / "home") as browser,
            phones(pw, browser, origin) as make,
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{ports[1]}") as api,
        ):
            game = await new_game(api, ["Alice", "Bob"])
            alice, bob = game["players"]["Alice"], game["players"]["Bob"]
            # Each phone keeps to the instance its cookie names: Alice the first, Bob the second.
            a, a_sockets = await join(make, alice, storage_state=pinned(ports[0]))
            b, b_sockets = await join(make, bob, storage_state=pinned(ports[1]))
            await challenge_on_phone(a, bob["code"])
            await expect(b.get_by_test_id("duel")).to_be_visible()
            await pick(a, STUN_CARD)
            await expect(b.get_by_test_id("opponent-picked")).to_be_visible()
            before = await events(api, game["gid"], game["org"])

            servers[0].send_signal(signal.SIGKILL)  # Alice's instance, mid-duel
            servers[0].wait()
            await pick(b, WOUND_CARD)
            await expect(a.get_by_test_id("reveal")).to_be_visible(timeout=20_000)
            await expect(b.get_by_test_id("reveal")).to_be_visible()
            await expect(a.get_by_test_id("connection")).to_have_text("spojeno")
            # Only Alice's socket died and came back (through the proxy, to the other one).
            assert len(a_sockets) >= 2 and len(b_sockets) == 1, (a_sockets, b_sockets)

            after = await events(api, game["gid"], game["org"])
            assert after[: len(before)] == before  # nothing acknowledged is lost
            picks = [e["data"]["player_id"] for e in after if e["type"] == "card_picked"]
            assert sorted(picks) == sorted([alice["player_id"], bob["player_id"]])
            seen = await server_view(api, game["gid"], bob["token"])
            assert seen["me"]["stunned_until"] and seen["duel"] is None
            await b.get_by_test_id("reveal-ok").click()
            await expect(b.get_by_test_id("stun-screen")).to_be_visible()
            await shot(a, "34-cluster-reveal-after-failover")
    finally:
        for server in servers:
            stop(server)


def pinned(port: int) -> dict[str, Any]:
    """A browser's storage state holding Caddy's load-balancing cookie for this upstream: the
    HMAC-SHA256 of its dial address, keyed by the (empty) secret."""
    value = hmac.new(b"", f"127.0.0.1:{port}".encode(), hashlib.sha256).hexdigest()
    cookie = {"name": "bijse_instance", "value": value, "domain": NAME, "path": "/"}
    flags = {"expires": -1, "httpOnly": False, "secure": False, "sameSite": "Lax"}
    return {"cookies": [{**cookie, **flags}], "origins": []}


async def test_one_scan_on_a_named_route_with_a_real_certificate_and_the_laptops_dns(
    pw: Playwright, tmp_path: Path
) -> None:
    """The named route end to end: `field.sh certificate` gets NAME's certificate from pebble
    (the tests' Let's Encrypt) by DNS-01, `field.sh --domain NAME` serves it with the laptop's
    DNS on port 53 of a loopback address, and a phone whose network hands out that DNS, and
    which trusts only pebble's root (as a phone trusts Let's Encrypt's), scans its invite and
    duels: no certificate error, nothing installed, the service worker on."""
    if os.geteuid() != 0:
        pytest.skip("needs root: the laptop's DNS on port 53 and a mount namespace for Chromium")
    listen = f"127.{random.randint(1, 250)}.{random.randint(1, 250)}.{random.randint(2, 250)}"
    port, http_port, https_port = free_port(), free_port(), free_port()
    async with pebble(tmp_path / "pebble") as acme:
        state = tmp_path / "state"
        issued = certificate(acme, state)
        assert issued.returncode == 0, issued.stdout + issued.stderr
        root = await acme.root(tmp_path)
    route = (
        *("--domain", NAME, "--address", "127.0.0.1", "--dns-address", listen),
        *("--hosts-file", "none"),
    )
    async with (
        field_script(state, port, http_port, https_port, route) as output,
        trusting_browser(pw, root, tmp_path / "home", resolver=listen) as browser,
    ):
        origin = f"https://{NAME}:{https_port}"
        assert f"Bij se is ready in the field at {origin}/" in output
        key = (state / "admin-key").read_text().strip()
        auth = {"Authorization": f"Bearer {key}"}
        async with (
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", headers=auth) as api,
            phones(pw, browser, origin) as make,
        ):
            game = await new_game(api, ["Alice", "Bob"])
            alice, bob = game["players"]["Alice"], game["players"]["Bob"]
            assert alice["join_url"].startswith(f"{origin}/#/join/")
            a, a_sockets = await join(make, alice)
            b, _ = await join(make, bob)
            for page in (a, b):
                assert await page.evaluate("window.isSecureContext") is True
                await page.wait_for_function("() => navigator.serviceWorker.controller !== null")
                await expect(page.get_by_test_id("insecure-banner")).to_have_count(0)
            assert a_sockets and all(u.startswith(f"wss://{NAME}:") for u in a_sockets)
            await challenge_on_phone(a, bob["code"])
            await expect(b.get_by_test_id("duel")).to_be_visible()
            await pick(a, STUN_CARD)
            await pick(b, WOUND_CARD)
            await expect(a.get_by_test_id("reveal")).to_be_visible()
            await expect(b.get_by_test_id("reveal")).to_be_visible()
            await shot(a, "35-named-route-reveal")
            # The console says the game is on the trusted route: nothing for phones to install.
            console = await (await make()).new_page()
            await console.goto(f"{origin}/#/join/{game['gid']}/{game['org']}")
            route_line = console.get_by_test_id("field-route")
            await expect(route_line).to_have_attribute("data-route", "trusted")
            await shot(console, "36-named-route-console")
        # What made it work, taken away one at a time: a phone whose DNS is not the laptop's
        # finds no NAME; a phone that does not trust the issuer gets a certificate error.
        nowhere = f"127.{random.randint(1, 250)}.{random.randint(1, 250)}.1"
        stranger = tmp_path / "pebble" / "pebble-tls.crt"
        for ca, resolver, error in (
            (root, nowhere, "ERR_NAME_NOT_RESOLVED"),
            (stranger, listen, "ERR_CERT_AUTHORITY_INVALID"),
        ):
            async with (
                trusting_browser(pw, ca, tmp_path / error, resolver=resolver) as other,
                phones(pw, other, origin) as make,
            ):
                page = await (await make()).new_page()
                with pytest.raises(PlaywrightError, match=error):
                    await page.goto(alice["join_url"])
