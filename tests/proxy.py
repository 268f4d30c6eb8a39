"""Real Caddy and real `bijse serve` processes for the field tests (tests/test_field.py,
tests/browser/test_https.py): free high ports, all state in temp dirs, stopped at the end.

Phones reach the proxy by a name that is not loopback (NAME): Chromium maps it to 127.0.0.1 with
--host-resolver-rules; httpx and websockets are told the address and keep the name for Host, SNI
and the certificate check.
"""

import asyncio
import ipaddress
import os
import shutil
import signal
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

NAME = "bijse.test"
ROOT = Path(__file__).resolve().parent.parent


def need_caddy() -> str:
    caddy = shutil.which("caddy")
    if caddy:
        return caddy
    if os.environ.get("BIJSE_REQUIRE_CADDY"):
        pytest.fail("BIJSE_REQUIRE_CADDY is set but there is no caddy (apt-get install caddy)")
    pytest.skip("no caddy (apt-get install caddy)")


async def until(check: Any, what: str, process: subprocess.Popen[bytes] | None = None) -> None:
    """Polls `check()` (true, or no exception) for 20 s; fails early if `process` exits."""
    for _ in range(400):
        try:
            if await check():
                return
        except (OSError, httpx.TransportError):
            pass
        if process is not None and process.poll() is not None:
            raise AssertionError(f"{what}: the process exited with {process.returncode}")
        await asyncio.sleep(0.05)
    raise AssertionError(f"{what}: not in 20 s")


async def healthy(url: str) -> bool:
    async with httpx.AsyncClient(timeout=2) as client:
        return (await client.get(f"{url}/healthz")).status_code == 200


async def serve(
    port: int, database_url: str, log: Path, *more: str, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """The real CLI server on 127.0.0.1:port (`env` added to this process's environment);
    answers /healthz when this returns."""
    options = ["--database-url", database_url, *more]
    with log.open("ab") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "server.serve.cli", "serve", "--port", str(port), *options],
            stdout=output,
            stderr=output,
            cwd=ROOT,
            # the tests' load is no attack: rate limits off unless a test says
            env={"BIJSE_RATE_LIMITS": "off", **os.environ, **(env or {})},
        )
    try:
        await until(lambda: healthy(f"http://127.0.0.1:{port}"), str(log), process)
    except AssertionError:
        stop(process)
        raise AssertionError(log.read_text()) from None
    return process


def stop(process: subprocess.Popen[Any]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def caddy_env(home: Path) -> dict[str, str]:
    """Caddy's storage (its CA, certificates, locks) in `home`, nothing in the real $HOME."""
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
    }


def local_ca(data_home: Path) -> Path:
    """The root certificate of Caddy's internal CA (`tls internal`, `local_certs`)."""
    return data_home / "caddy" / "pki" / "authorities" / "local" / "root.crt"


@asynccontextmanager
async def caddy(config: Path, home: Path, https_port: int, **env: str) -> AsyncIterator[Path]:
    """Runs `caddy run` on `config` (which must turn the admin endpoint off) until the block
    ends; yields its CA's root certificate once the https port answers with a certificate."""
    home.mkdir(parents=True, exist_ok=True)
    log = home / "caddy.log"
    with log.open("ab") as output:
        process = subprocess.Popen(
            [need_caddy(), "run", "--config", str(config), "--adapter", "caddyfile"],
            env={**caddy_env(home), **env},
            stdout=output,
            stderr=output,
        )
    root = local_ca(home / "data")

    async def ready() -> bool:
        if not root.exists():
            return False
        async with via_name(root) as client:
            await client.get(f"https://{NAME}:{https_port}/")
        return True

    try:
        await until(ready, f"caddy ({log})", process)
        yield root
    finally:
        stop(process)


def trusting(ca: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(ca))


@asynccontextmanager
async def via_name(ca: Path | None = None, **options: Any) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client whose requests to NAME go to 127.0.0.1, with NAME in Host and SNI and the
    certificate checked against `ca`."""

    async def to_loopback(request: httpx.Request) -> None:
        if request.url.host == NAME:
            request.url = request.url.copy_with(host="127.0.0.1")
            request.extensions["sni_hostname"] = NAME

    verify: ssl.SSLContext | bool = trusting(ca) if ca else True
    async with httpx.AsyncClient(
        verify=verify, timeout=10, event_hooks={"request": [to_loopback]}, **options
    ) as client:
        yield client


def listening(pid: int) -> set[tuple[str, int]]:
    """The TCP addresses a process listens on, from /proc (no ss or psutil needed)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = set()
    for table, size in (("tcp", 4), ("tcp6", 16)):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] != "0A" or fields[9] not in inodes:  # 0A: LISTEN
                continue
            address, port = fields[1].split(":")
            raw = bytes.fromhex(address)
            # /proc prints each 32-bit word in host (little-endian) order.
            raw = b"".join(raw[i : i + 4][::-1] for i in range(0, size, 4))
            found.add((str(ipaddress.ip_address(raw)), int(port, 16)))
    return found


@asynccontextmanager
async def field_script(
    state: Path,
    port: int,
    http_port: int,
    https_port: int,
    route: tuple[str, ...] = ("--name", NAME, "--name", "127.0.0.1"),
    env: dict[str, str] | None = None,
) -> AsyncIterator[str]:
    """Runs the real deploy/field.sh on these ports, bound to loopback, by default for NAME (and
    127.0.0.1) on its own CA, else with the `route` options, until the block ends (then Ctrl-C,
    as an organizer stops it); yields what it printed."""
    need_caddy()
    script = subprocess.Popen(
        [
            *(str(ROOT / "deploy" / "field.sh"), *route),
            *("--http-port", str(http_port), "--https-port", str(https_port), "--port", str(port)),
            *("--bind", "127.0.0.1", "--state", str(state)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert script.stdout is not None
    printed: list[str] = []
    try:
        while not printed or not printed[-1].startswith("Ctrl-C stops"):
            line = await asyncio.wait_for(asyncio.to_thread(script.stdout.readline), 60)
            assert line, "".join(printed)
            printed.append(line)
        yield "".join(printed)
    finally:
        script.send_signal(signal.SIGINT)
        script.wait(timeout=20)
        script.stdout.close()


def globals_for_tests(http_port: int, https_port: int) -> str:
    """What the tests swap into deploy/Caddyfile: a local CA instead of ACME, high ports."""
    return "\n".join(
        [
            "admin off",
            "local_certs",
            "skip_install_trust",
            f"http_port {http_port}",
            f"https_port {https_port}",
        ]
    )


def field_caddy(
    home: Path, upstreams: list[int], http_port: int, https_port: int
) -> AbstractAsyncContextManager[Path]:
    """deploy/Caddyfile as the field runs it, for `NAME` in front of the servers on these
    loopback ports, on the tests' own ports and CA (yields the CA's root certificate)."""
    return caddy(
        ROOT / "deploy" / "Caddyfile",
        home,
        https_port,
        BIJSE_DOMAIN=NAME,
        BIJSE_UPSTREAM=" ".join(f"127.0.0.1:{port}" for port in upstreams),
        BIJSE_CADDY_GLOBAL=globals_for_tests(http_port, https_port),
    )
