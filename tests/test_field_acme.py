"""The field's named route for real: `deploy/field.sh certificate` gets a certificate from a
local ACME server (pebble) by DNS-01 through lego, `field.sh --domain` answers the name from the
laptop's DNS (dnsmasq) and serves it through Caddy, and `field.sh check` names what is wrong.
Every failure an organizer can meet is a sentence with its fix, never a traceback."""

import asyncio
import random
import socket
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
import pytest
from cryptography import x509

from tests.acme import Pebble, certificate, field, need_field_tools, pebble, self_signed
from tests.conftest import free_port
from tests.proxy import NAME, field_script, via_name


def no_traceback(done: Any) -> None:
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr


@pytest.fixture(scope="module")
async def acme(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Pebble]:
    async with pebble(tmp_path_factory.mktemp("pebble")) as server:
        yield server


@pytest.fixture(scope="module")
async def issued(acme: Pebble, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A certificate for NAME got by the very command of the README, once for the module."""
    state = tmp_path_factory.mktemp("state")
    done = certificate(acme, state)
    assert done.returncode == 0, done.stdout + done.stderr
    return {"state": state, "output": done.stdout, "root": await acme.root(state)}


async def test_certificate_by_dns01_from_an_acme_server(issued: dict[str, Any]) -> None:
    state, output = issued["state"], issued["output"]
    crt = state / "acme" / "certificates" / f"{NAME}.crt"
    key = crt.with_suffix(".key")
    cert = x509.load_pem_x509_certificate(crt.read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == [NAME]
    assert "Pebble" in cert.issuer.rfc4514_string()  # the ACME server's, not a self-made one
    # It chains to the root a phone would trust (lego's .crt holds the intermediate too).
    verified = subprocess.run(
        ["openssl", "verify", "-CAfile", str(issued["root"]), "-untrusted", str(crt), str(crt)],
        capture_output=True,
        text=True,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert key.stat().st_mode & 0o077 == 0  # the key: this user's alone
    # The dates and what to do when it runs out.
    ends = cert.not_valid_after_utc
    assert f"to {ends:%Y-%m-%d %H:%M} UTC" in output
    assert "renew it at home" in output and "this same command" in output
    assert f"./deploy/field.sh --domain {NAME}" in output


async def test_certificate_again_keeps_a_fresh_one(acme: Pebble, issued: dict[str, Any]) -> None:
    crt = issued["state"] / "acme" / "certificates" / f"{NAME}.crt"
    before = crt.read_bytes()
    done = certificate(acme, issued["state"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "kept as it is" in done.stdout
    assert crt.read_bytes() == before


async def test_certificate_refuses_with_the_fix(acme: Pebble, tmp_path: Path) -> None:
    state = tmp_path / "state"
    # A provider lego does not know at all (a typo): said before anything is asked.
    done = field("certificate", "--domain", NAME, "--dns", "duckdsn", "--state", str(state))
    assert done.returncode == 1 and "lego knows no DNS provider 'duckdsn'" in done.stderr
    # One lego lists but Debian's build lacks.
    done = field(
        *("certificate", "--domain", NAME, "--dns", "cloudflare"),
        *("--acme-server", acme.directory, "--state", str(state)),
        env=acme.lego_env(),
    )
    assert done.returncode == 1 and "built without the DNS provider 'cloudflare'" in done.stderr
    assert "duckdns" in done.stderr
    # A provider whose token is missing: the variable is named, and how to give it.
    env = {k: v for k, v in acme.lego_env().items() if k != "DUCKDNS_TOKEN"}
    done = field(
        *("certificate", "--domain", "x.duckdns.org", "--dns", "duckdns"),
        *("--acme-server", acme.directory, "--state", str(state)),
        env=env,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "needs DUCKDNS_TOKEN in the environment" in done.stderr
    assert "DUCKDNS_TOKEN=… ./deploy/field.sh certificate" in done.stderr
    # No ACME server to reach (no internet).
    done = field(
        *("certificate", "--domain", NAME, "--dns", "exec"),
        *("--acme-server", f"https://127.0.0.1:{free_port()}/dir", "--state", str(state)),
        env=acme.lego_env(),
    )
    assert done.returncode == 1 and "cannot reach the ACME server" in done.stderr
    # Not a name; a state directory nobody can write (under a file).
    done = field("certificate", "--domain", "10.42.0.1", "--dns", "exec", "--state", str(state))
    assert done.returncode == 1 and "give a host name" in done.stderr
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = field("certificate", "--domain", NAME, "--dns", "exec", "--state", str(blocker / "x"))
    assert done.returncode == 1 and "cannot write the state directory" in done.stderr
    no_traceback(done)


def findings(done: Any) -> list[str]:
    return [line for line in done.stdout.splitlines() if line.startswith(("ok:", "PROBLEM:"))]


def check(state: Path, domain: str = NAME, *more: str) -> Any:
    return field(
        *("check", "--state", str(state), "--domain", domain, "--address", "127.0.0.1"),
        *("--http-port", str(free_port()), "--https-port", str(free_port()), *more),
    )


def place(state: Path, crt: Path, key: Path, domain: str = NAME) -> None:
    folder = state / "acme" / "certificates"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{domain}.crt").write_bytes(crt.read_bytes())
    (folder / f"{domain}.key").write_bytes(key.read_bytes())


@pytest.fixture
def dns_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def test_check_names_a_missing_expired_foreign_or_short_certificate(tmp_path: Path) -> None:
    need_field_tools()
    state = tmp_path / "state"
    done = check(state, NAME, "--phase", "before")
    assert done.returncode == 1
    assert f"PROBLEM: no certificate for {NAME}" in done.stdout
    assert f"./deploy/field.sh certificate --domain {NAME} --dns PROVIDER" in done.stdout

    good = self_signed(tmp_path / "good", [NAME], days=(-1, 30))
    place(state, *good)
    done = check(state, NAME, "--phase", "before")
    assert done.returncode == 0, done.stdout
    assert any(
        f.startswith(f"ok: certificate for {NAME}") and "29 days left" in f for f in findings(done)
    )

    expired = self_signed(tmp_path / "expired", [NAME], days=(-90, -1))
    place(state, *expired)
    done = check(state, NAME, "--phase", "before")
    assert done.returncode == 1 and f"PROBLEM: the certificate for {NAME} expired" in done.stdout
    assert "renew it at home" in done.stdout

    place(state, *good)  # good for 29 more days, but the game ends in 40
    ends = "2099-01-01T12:00"
    done = check(state, NAME, "--phase", "before", "--game-ends", ends)
    assert done.returncode == 1 and "runs out before the game ends" in done.stdout
    assert "29 days left" in done.stdout

    other = self_signed(tmp_path / "other", ["hra.example.cz"], days=(-1, 30))
    place(state, *other, domain=NAME)
    done = check(state, NAME, "--phase", "before")
    assert done.returncode == 1
    assert f"is for hra.example.cz, not {NAME}" in done.stdout

    # A certificate with another's key beside it.
    place(state, good[0], other[1])
    done = check(state, NAME, "--phase", "before")
    assert done.returncode == 1 and "does not belong to the certificate" in done.stdout
    # A bad time for the game's end: one line, no traceback.
    place(state, *good)
    done = check(state, NAME, "--game-ends", "next friday")
    assert done.returncode == 2 and "not a time like" in done.stderr
    no_traceback(done)


async def test_check_names_a_dns_that_answers_wrong_or_not_at_all(
    tmp_path: Path, dns_port: int
) -> None:
    need_field_tools()
    state = tmp_path / "state"
    place(state, *self_signed(tmp_path / "good", [NAME]))
    listen = f"127.{random.randint(1, 250)}.{random.randint(1, 250)}.{random.randint(2, 250)}"
    dns_options = ("--dns-address", listen, "--dns-port", str(dns_port), "--phase", "running")
    done = check(state, NAME, *dns_options)
    assert (
        done.returncode == 1
        and f"PROBLEM: nothing answers DNS on {listen}:{dns_port}" in done.stdout
    )
    # A DNS that answers the name with another address (an old hotspot's).
    wrong = subprocess.Popen(
        [
            *("dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--pid-file="),
            *("--no-resolv", "--no-hosts", "--bind-interfaces", f"--listen-address={listen}"),
            *(f"--port={dns_port}", f"--host-record={NAME},10.42.0.1", "--log-facility=-"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(50):
            done = check(state, NAME, *dns_options)
            if "nothing answers" not in done.stdout:
                break
            await asyncio.sleep(0.1)
        assert done.returncode == 1, done.stdout
        assert f"answers {NAME} with 10.42.0.1, not 127.0.0.1" in done.stdout
    finally:
        wrong.terminate()
        wrong.wait(10)


async def test_a_taken_dns_port_stops_the_start_with_who_holds_it(
    issued: dict[str, Any], tmp_path: Path, dns_port: int
) -> None:
    listen = f"127.{random.randint(1, 250)}.{random.randint(1, 250)}.{random.randint(2, 250)}"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as squatter:
        squatter.bind((listen, dns_port))
        port, http_port, https_port = free_port(), free_port(), free_port()
        done = field(
            *("--domain", NAME, "--address", "127.0.0.1", "--dns-address", listen),
            *("--dns-port", str(dns_port), "--hosts-file", "none", "--bind", "127.0.0.1"),
            *("--port", str(port), "--http-port", str(http_port), "--https-port", str(https_port)),
            *("--state", str(issued["state"])),
            timeout=60,
        )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"PROBLEM: port {dns_port}/udp (DNS) on {listen} is taken by" in done.stdout
    assert "python" in done.stdout  # the process that holds it, by name
    assert "fix what is above, then start again" in done.stderr
    no_traceback(done)
    # Nothing half-started: no server, no proxy left behind.
    for free in (port, https_port):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", free))


async def test_the_laptops_dns_answers_the_name_and_only_what_it_must(
    issued: dict[str, Any], tmp_path: Path
) -> None:
    """field.sh --domain on loopback ports: dnsmasq answers NAME with the laptop's address, https
    serves the certificate, and the laptop's hosts file learns the name while it runs."""
    port, http_port, https_port, dns_port = free_port(), free_port(), free_port(), free_port()
    listen = f"127.{random.randint(1, 250)}.{random.randint(1, 250)}.{random.randint(2, 250)}"
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 localhost\n")
    route = (
        *("--domain", NAME, "--address", "127.0.0.1", "--dns-address", listen),
        *("--dns-port", str(dns_port), "--hosts-file", str(hosts)),
    )
    async with field_script(issued["state"], port, http_port, https_port, route) as output:
        assert f"Bij se is ready in the field at https://{NAME}:{https_port}/" in output
        assert f"ok: the laptop's DNS ({listen}:{dns_port}) answers {NAME} with 127.0.0.1" in output
        assert "https://" in output and "█" in output  # the game's QR

        def ask(name: str, kind: dns.rdatatype.RdataType) -> dns.message.Message:
            query = dns.message.make_query(name, kind)
            return dns.query.udp(query, listen, port=dns_port, timeout=2)

        a = ask(NAME, dns.rdatatype.A)
        assert [str(r) for rrset in a.answer for r in rrset] == ["127.0.0.1"]
        aaaa = ask(NAME, dns.rdatatype.AAAA)  # Chromium asks it too: empty, not an error
        assert aaaa.rcode() == dns.rcode.NOERROR and not aaaa.answer
        elsewhere = ask("example.com", dns.rdatatype.A)  # no upstream: nothing else answered
        assert not elsewhere.answer
        assert f"127.0.0.1 {NAME} # bijse-field" in hosts.read_text()

        async with via_name(issued["root"]) as client:  # the phone's trust: pebble's root
            answer = await client.get(f"https://{NAME}:{https_port}/api/join-origin")
            assert answer.json()["join_origin"] == f"https://{NAME}:{https_port}"
            plain = await client.get(f"http://127.0.0.1:{http_port}/anything")
            assert plain.status_code == 308
            assert plain.headers["location"] == f"https://{NAME}:{https_port}/anything"
        done = field(
            *("check", "--state", str(issued["state"]), *route[:8]),
            *("--http-port", str(http_port), "--https-port", str(https_port)),
        )
        assert done.returncode == 0, done.stdout  # its own ports count as its own
        assert "this field set-up's" in done.stdout
    assert "bijse-field" not in hosts.read_text()  # Ctrl-C took the line away
    assert "127.0.0.1 localhost" in hosts.read_text()
