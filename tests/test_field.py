"""HTTPS in the field: the public-host Caddyfile (deploy/Caddyfile) and the laptop script
(deploy/field.sh), run for real on high ports, and join links that know the public address."""

import asyncio
import hashlib
import json
import ssl
import subprocess
import sys
from pathlib import Path

import httpx
import segno
import websockets

from server.web.app import create_app
from server.web.forwarded import Proxies, behind
from tests.conftest import free_port
from tests.proxy import (
    NAME,
    ROOT,
    field_caddy,
    field_script,
    listening,
    need_caddy,
    serve,
    stop,
    trusting,
    via_name,
)


async def join_origin(
    tmp_path: Path, peer: str, headers: dict[str, str], public_url: str | None = None
) -> str:
    app = behind(
        create_app(f"sqlite:///{tmp_path / 'x.db'}", public_url=public_url), Proxies("127.0.0.1")
    )
    transport = httpx.ASGITransport(app=app, client=(peer, 5555))
    async with httpx.AsyncClient(transport=transport, base_url="http://bijse.test:8000") as c:
        answer = await c.get("/api/join-origin", headers=headers)
    assert answer.status_code == 200, answer.text
    origin: str = answer.json()["join_origin"]
    return origin


async def test_forwarded_host_and_scheme_are_believed_from_the_proxy_only(
    tmp_path: Path,
) -> None:
    forwarded = {"X-Forwarded-Host": "hra.example.cz", "X-Forwarded-Proto": "https"}
    assert await join_origin(tmp_path, "127.0.0.1", forwarded) == "https://hra.example.cz"
    # Anyone else may send the same headers: they change nothing.
    assert await join_origin(tmp_path, "192.0.2.7", forwarded) == "http://bijse.test:8000"
    # Not a host: ignored, even from the proxy (the scheme still counts).
    bad = {"X-Forwarded-Host": "evil.example/#/join", "X-Forwarded-Proto": "https"}
    assert await join_origin(tmp_path, "127.0.0.1", bad) == "https://bijse.test:8000"
    # --public-url, when given, wins over everything.
    public = "https://les.example.cz"
    assert await join_origin(tmp_path, "127.0.0.1", forwarded, public + "/") == public


def test_bad_forwarded_allow_ips_is_one_line_and_exit_2(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'x.db'}"
    options = ["--database-url", database, "--forwarded-allow-ips", "proxy"]
    done = subprocess.run(
        [sys.executable, "-m", "server.serve.cli", "serve", "--port", str(free_port()), *options],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 2, done
    assert done.stderr.startswith("bijse: --forwarded-allow-ips:") and done.stderr.count("\n") == 1


async def test_public_host_recipe_redirects_proxies_sockets_and_keeps_the_server_on_loopback(
    tmp_path: Path,
) -> None:
    need_caddy()
    port, http_port, https_port = free_port(), free_port(), free_port()
    server = await serve(port, f"sqlite:///{tmp_path / 'bijse.db'}", tmp_path / "server.log")
    origin = f"https://{NAME}:{https_port}"
    try:
        async with field_caddy(tmp_path / "caddy", [port], http_port, https_port) as ca:
            async with via_name(ca) as client:
                plain = await client.get(f"http://{NAME}:{http_port}/games?x=1")
                assert plain.status_code == 308
                # To https, same host and path. Caddy 2.6 leaves a non-default https_port out of
                # the redirect; in production that port is 443, which needs none.
                assert plain.headers["location"] == f"https://{NAME}/games?x=1"
                # The join links get the phone's https address, though the server was given none;
                # a client's own X-Forwarded-Host does not get through Caddy.
                spoof = {"X-Forwarded-Host": "evil.example"}
                answer = await client.get(f"{origin}/api/join-origin", headers=spoof)
                assert answer.json() == {"join_origin": origin, "route": "trusted", "ca_page": None}
                made = await client.post(
                    f"{origin}/api/games", json={"ruleset": "card-duel", "name": "Les"}
                )
                game = made.json()
                added = await client.post(
                    f"{origin}/api/games/{game['game_id']}/players",
                    json={"name": "Alice"},
                    headers={"Authorization": f"Bearer {game['organizer_token']}"},
                )
                alice = added.json()
                assert alice["join_url"].startswith(f"{origin}/#/join/{game['game_id']}/")
            socket = f"wss://{NAME}:{https_port}/ws/games/{game['game_id']}?token={alice['token']}"
            async with websockets.connect(
                socket, host="127.0.0.1", ssl=trusting(ca), open_timeout=10
            ) as ws:
                first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert first["type"] == "view" and first["view"]["me"]["name"] == "Alice"
            assert listening(server.pid) == {("127.0.0.1", port)}
    finally:
        stop(server)


async def test_field_script_serves_https_from_its_own_ca_and_a_page_to_trust_it(
    tmp_path: Path,
) -> None:
    port, http_port, https_port = free_port(), free_port(), free_port()
    async with field_script(tmp_path / "state", port, http_port, https_port) as output:
        game_url, page_url = f"https://{NAME}:{https_port}", f"http://{NAME}:{http_port}"
        key = (tmp_path / "state" / "admin-key").read_text().strip()
        assert f"Organizer, on this laptop:  {game_url}/#/admin/{key}" in output
        assert f"{page_url}/" in output and "█" in output  # the phones' page, and its QR
        assert "installing" not in output  # everything is there already: no apt

        async with via_name() as client:
            page = await client.get(f"{page_url}/")
            cert = await client.get(f"{page_url}/bijse-ca.crt")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        text = page.text
        assert text.index('<main lang="cs"') < text.index('<main lang="en"')  # Czech first
        for step in (
            "Šifrování a pověření → Instalovat certifikát → Certifikát CA",
            "Profil stažen → Instalovat",
            "Obecné → Informace → Nastavení důvěryhodnosti certifikátů",
            "Security → Encryption &amp; credentials → Install a certificate → CA",
            "General → About → Certificate Trust Settings",
            f'href="{game_url}"',
        ):
            assert step in text, step
        assert segno.make(f"{page_url}/", error="m").svg_inline(scale=4) in text
        assert cert.headers["content-type"] == "application/x-x509-ca-cert"
        fingerprint = hashlib.sha256(cert.content).hexdigest().upper()
        assert ":".join(fingerprint[i : i + 2] for i in range(0, 64, 2)) in text

        # The certificate offered is the CA the game's https is signed by, for the name and
        # for the bare address (a phone that has no name for the laptop sends no SNI).
        ca = tmp_path / "offered.pem"
        ca.write_text(ssl.DER_cert_to_PEM_cert(cert.content))
        async with via_name(ca) as client:
            answer = await client.get(f"{game_url}/api/join-origin")
            # --public-url from the script, and the page phones open first on this route
            route = {"join_origin": game_url, "route": "field-ca", "ca_page": f"{page_url}/"}
            assert answer.json() == route
            # Phones on the LAN reach it: only the organizer's admin key creates games.
            game = {"ruleset": "card-duel", "name": "Les"}
            refused = await client.post(f"{game_url}/api/games", json=game)
            assert refused.status_code == 401
            auth = {"Authorization": f"Bearer {key}"}
            made = await client.post(f"{game_url}/api/games", json=game, headers=auth)
            assert made.status_code == 201
            by_address = await client.get(f"https://127.0.0.1:{https_port}/healthz")
            assert by_address.json()["ok"] is True  # with its worker's number: one a core
    async with httpx.AsyncClient() as client:  # Ctrl-C stopped the server too
        try:
            await client.get(f"http://127.0.0.1:{port}/healthz")
            raise AssertionError("the server still answers after Ctrl-C")
        except httpx.ConnectError:
            pass
