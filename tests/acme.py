"""A local ACME server for the field tests: Debian's pebble (the tests' Let's Encrypt) and its
pebble-challtestsrv (the DNS that DNS-01 writes to and pebble asks), on free loopback ports,
and lego's `exec` DNS provider pointed at it. Nothing here is reached beyond loopback."""

import json
import os
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.conftest import free_port
from tests.proxy import NAME, ROOT, stop, until

TOOLS = {  # the command, and the Debian package that has it
    "lego": "lego",
    "pebble": "pebble",
    "pebble-challtestsrv": "pebble",
    "dnsmasq": "dnsmasq-base",
    "caddy": "caddy",
}


def need_field_tools() -> None:
    missing = [f"{tool} ({package})" for tool, package in TOOLS.items() if not shutil.which(tool)]
    if not missing:
        return
    what = f"no {', '.join(missing)}: apt-get install lego pebble dnsmasq-base caddy"
    if os.environ.get("BIJSE_REQUIRE_CADDY"):
        pytest.fail(f"BIJSE_REQUIRE_CADDY is set but there is {what}")
    pytest.skip(what)


def self_signed(
    folder: Path,
    names: list[str],
    *,
    days: tuple[float, float] = (-1, 30),
    ip: str | None = None,
    stem: str = "cert",
) -> tuple[Path, Path]:
    """A throwaway certificate and key (PEM) valid from/to these days around now."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(UTC)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0] if names else "x")])
    alternatives: list[x509.GeneralName] = [x509.DNSName(n) for n in names]
    if ip:
        import ipaddress

        alternatives.append(x509.IPAddress(ipaddress.ip_address(ip)))
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now + timedelta(days=days[0]))
        .not_valid_after(now + timedelta(days=days[1]))
        .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
        .sign(key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    crt, pem = folder / f"{stem}.crt", folder / f"{stem}.key"
    crt.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pem.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return crt, pem


HOOK = """#!/bin/sh
# lego's exec DNS provider: `present|cleanup FQDN VALUE`, written to pebble-challtestsrv.
case $1 in
present) curl -fsS -d "{\\"host\\":\\"$2\\",\\"value\\":\\"$3\\"}" {url}/set-txt ;;
cleanup) curl -fsS -d "{\\"host\\":\\"$2\\"}" {url}/clear-txt ;;
esac
"""


@dataclass
class Pebble:
    directory: str  # the ACME directory URL (field.sh certificate --acme-server)
    tls_ca: Path  # pebble's own https certificate: lego trusts it (LEGO_CA_CERTIFICATES)
    management: str
    hook: Path  # EXEC_PATH for lego's exec provider

    def lego_env(self) -> dict[str, str]:
        return {**os.environ, "EXEC_PATH": str(self.hook), "LEGO_CA_CERTIFICATES": str(self.tls_ca)}

    async def root(self, folder: Path) -> Path:
        """The root pebble issues under (new at each start): what a phone's trust store holds."""
        context = ssl.create_default_context(cafile=str(self.tls_ca))
        async with httpx.AsyncClient(verify=context) as client:
            answer = await client.get(f"{self.management}/roots/0")
        answer.raise_for_status()
        path = folder / "pebble-root.pem"
        path.write_text(answer.text)
        return path


@asynccontextmanager
async def pebble(home: Path) -> AsyncIterator[Pebble]:
    need_field_tools()
    home.mkdir(parents=True, exist_ok=True)
    tls_crt, tls_key = self_signed(home, ["localhost"], ip="127.0.0.1", stem="pebble-tls")
    acme, management, dns, dns_management = (free_port() for _ in range(4))
    config = {
        "pebble": {
            "listenAddress": f"127.0.0.1:{acme}",
            "managementListenAddress": f"127.0.0.1:{management}",
            "certificate": str(tls_crt),
            "privateKey": str(tls_key),
            "httpPort": free_port(),
            "tlsPort": free_port(),
            "ocspResponderURL": "",
            "externalAccountBindingRequired": False,
        }
    }
    (home / "pebble.json").write_text(json.dumps(config))
    challtest_url = f"http://127.0.0.1:{dns_management}"
    hook = home / "dns-hook.sh"
    hook.write_text(HOOK.replace("{url}", challtest_url))
    hook.chmod(0o755)
    processes: list[subprocess.Popen[bytes]] = []
    with (home / "challtestsrv.log").open("ab") as log:
        processes.append(
            subprocess.Popen(
                [
                    "pebble-challtestsrv",
                    *("-management", f"127.0.0.1:{dns_management}"),
                    *("-dns01", f"127.0.0.1:{dns}", "-http01", "", "-https01", ""),
                    *("-tlsalpn01", ""),
                ],
                stdout=log,
                stderr=log,
            )
        )
    # No random sleeps, no rejected nonces, and a fresh DNS-01 challenge every time.
    quick = {"PEBBLE_VA_NOSLEEP": "1", "PEBBLE_WFE_NONCEREJECT": "0", "PEBBLE_AUTHZREUSE": "0"}
    with (home / "pebble.log").open("ab") as log:
        processes.append(
            subprocess.Popen(
                ["pebble", "-config", str(home / "pebble.json"), "-dnsserver", f"127.0.0.1:{dns}"],
                stdout=log,
                stderr=log,
                env={**os.environ, **quick},
            )
        )
    server = Pebble(
        f"https://127.0.0.1:{acme}/dir", tls_crt, f"https://127.0.0.1:{management}", hook
    )
    context = ssl.create_default_context(cafile=str(tls_crt))

    async def up() -> bool:
        async with httpx.AsyncClient(verify=context) as client:
            directory = await client.get(server.directory)
            txt = await client.post(f"{challtest_url}/clear-txt", json={"host": "x.test."})
        return directory.status_code == 200 and txt.status_code == 200

    try:
        for process in processes:
            await until(up, f"pebble ({home})", process)
        yield server
    finally:
        for process in processes:
            stop(process)


def field(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Any:
    """deploy/field.sh with these arguments, to its end."""
    return subprocess.run(
        [str(ROOT / "deploy" / "field.sh"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
    )


def certificate(server: Pebble, state: Path, *more: str, domain: str = NAME) -> Any:
    """The organizer's command at home, against pebble. Pebble's DNS cannot answer SOA queries,
    so lego's propagation check (a public DNS's feature) is off, through the pass-through."""
    return field(
        *("certificate", "--domain", domain, "--dns", "exec"),
        *("--acme-server", server.directory, "--state", str(state), *more),
        *("--", "--dns.disable-cp"),
        env=server.lego_env(),
    )
