"""What deploy/field.sh checks before (and while) it serves a game in the field, in plain words
with the fix: the certificate and its key, the laptop's address, the ports, the laptop's DNS.

    python deploy/field_check.py check [--state DIR] [--domain NAME] [--address ADDR]
        [--dns-address ADDR] [--dns-port 53] [--http-port 80] [--https-port 443]
        [--game-ends TIME] [--phase before|running|all]
    python deploy/field_check.py dates CERT     # the certificate's dates, after `certificate`
    python deploy/field_check.py address        # this laptop's LAN address (the hotspot's)

`check` prints a line a check ("ok: …" or "PROBLEM: … Fix: …") and exits 1 when anything is
wrong. `--phase before` leaves out what only a running set-up can pass (the DNS answering, the
certificate served); `running` checks only those; `all` (the default) checks everything, and takes
ports held by this set-up's own processes (pid files in the state directory) as fine.
"""

import argparse
import ipaddress
import os
import socket
import ssl
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dns.exception
import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes

STATE = Path(os.environ.get("XDG_STATE_HOME", Path.home() / ".local" / "state")) / "bijse-field"


@dataclass
class Finding:
    ok: bool
    text: str
    fix: str = ""

    def __str__(self) -> str:
        if self.ok:
            return f"ok: {self.text}"
        return f"PROBLEM: {self.text}" + (f"\n   Fix: {self.fix}" if self.fix else "")


def certificate_files(state: Path, domain: str) -> tuple[Path, Path]:
    """Where `field.sh certificate` (lego --path STATE/acme) keeps the name's certificate."""
    folder = state / "acme" / "certificates"
    return folder / f"{domain}.crt", folder / f"{domain}.key"


def days(delta: timedelta) -> str:
    whole = int(delta.total_seconds() // 86400)
    return f"{whole} day{'' if whole == 1 else 's'}"


def covers(cert: x509.Certificate, domain: str) -> bool:
    try:
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    for name in names.get_values_for_type(x509.DNSName):
        name = name.lower().rstrip(".")
        if name == domain:
            return True
        # A wildcard covers exactly one label: *.example.cz covers hra.example.cz.
        if name.startswith("*.") and domain.split(".", 1)[-1] == name[2:] and "." in domain:
            return True
    return False


def same_key(cert: x509.Certificate, key: PrivateKeyTypes) -> bool:
    raw = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    return cert.public_key().public_bytes(*raw) == key.public_key().public_bytes(*raw)


def check_certificate(state: Path, domain: str, game_ends: datetime) -> Iterator[Finding]:
    crt, key_file = certificate_files(state, domain)
    get = f"at home, with internet: ./deploy/field.sh certificate --domain {domain} --dns PROVIDER"
    if not crt.exists() or not key_file.exists():
        yield Finding(False, f"no certificate for {domain} in {crt.parent}", get)
        return
    try:
        cert = x509.load_pem_x509_certificate(crt.read_bytes())
    except ValueError:
        yield Finding(False, f"{crt} is not a PEM certificate", get)
        return
    try:
        key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    except (ValueError, TypeError):
        yield Finding(False, f"{key_file} is not an unencrypted PEM private key", get)
        return
    now = datetime.now(UTC)
    ends = cert.not_valid_after_utc
    span = f"valid {cert.not_valid_before_utc:%Y-%m-%d} to {ends:%Y-%m-%d %H:%M} UTC"
    renew = f"renew it at home, with internet: {get[len('at home, with internet: ') :]}"
    if not covers(cert, domain):
        names = ", ".join(cert_names(cert)) or "no name"
        yield Finding(False, f"the certificate in {crt} is for {names}, not {domain}", get)
    elif cert.not_valid_before_utc > now:
        yield Finding(
            False, f"the certificate is not valid yet ({span})", "check this laptop's clock"
        )
    elif ends <= now:
        yield Finding(False, f"the certificate for {domain} expired ({span})", renew)
    elif ends < game_ends:
        left = days(ends - now)
        yield Finding(
            False,
            f"the certificate for {domain} runs out before the game ends "
            f"({span}: {left} left; the game ends {game_ends:%Y-%m-%d %H:%M} UTC)",
            renew,
        )
    else:
        yield Finding(True, f"certificate for {domain}, {span}: {days(ends - now)} left")
    if not same_key(cert, key):
        yield Finding(False, f"the key {key_file} does not belong to the certificate {crt}", get)


def cert_names(cert: x509.Certificate) -> list[str]:
    try:
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    return [str(name) for name in names.get_values_for_type(x509.DNSName)]


def lan_addresses() -> list[str]:
    """This laptop's IPv4 addresses other than loopback (the hotspot's among them)."""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [a for a in out.split() if ":" not in a and not a.startswith("127.")]


def check_address(address: str) -> Finding:
    try:
        ipaddress.IPv4Address(address)
    except ValueError:
        return Finding(False, f"{address} is not an IPv4 address", "give --address A.B.C.D")
    with socket.socket() as probe:
        try:
            probe.bind((address, 0))
        except OSError:
            return Finding(
                False,
                f"no network interface of this laptop has the address {address}",
                "turn the hotspot on (NetworkManager: nmcli device wifi hotspot ssid Bijse "
                "password …), or join the travel router, then give field.sh the address it got "
                f"(now: {', '.join(lan_addresses()) or 'none'})",
            )
    return Finding(True, f"this laptop has the address {address}")


# Who holds a port, from /proc: its listening sockets, and the process whose fd is that socket.
def holders(port: int, address: str, udp: bool) -> list[tuple[int | None, str]]:
    tables = ("udp", "udp6") if udp else ("tcp", "tcp6")
    inodes = set()
    for table in tables:
        try:
            lines = Path(f"/proc/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if not udp and state != "0A":  # TCP: LISTEN only
                continue
            host, hex_port = local.split(":")
            if int(hex_port, 16) != port:
                continue
            raw = bytes.fromhex(host)
            raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            held = ipaddress.ip_address(raw)
            if held.version == 6 and held.ipv4_mapped:
                held = held.ipv4_mapped
            if held.is_unspecified or str(held) == address or address == "0.0.0.0":
                inodes.add(inode)
    if not inodes:
        return []
    found: list[tuple[int | None, str]] = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                    found.append((int(proc.name), cmdline.strip()))
                    break
        except OSError:
            continue
    return found or [(None, "a process this user may not see (run the check as root)")]


def advice(port: int, cmdline: str) -> str:
    if "systemd-resolved" in cmdline:
        return (
            "systemd-resolved answers DNS there: in /etc/systemd/resolved.conf set "
            "DNSStubListener=no, then sudo systemctl restart systemd-resolved"
        )
    if "dnsmasq-shared.d" in cmdline:
        return (
            "NetworkManager's hotspot runs this DNS: field.sh gives it the game's name instead "
            "(it writes /etc/NetworkManager/dnsmasq-shared.d/bijse.conf and restarts the hotspot)"
        )
    if "dnsmasq" in cmdline:
        return "sudo systemctl disable --now dnsmasq (Debian's dnsmasq service)"
    if "caddy" in cmdline:
        return "sudo systemctl disable --now caddy (Debian's caddy service), or stop that Caddy"
    for server in ("apache2", "nginx", "lighttpd"):
        if server in cmdline:
            return f"sudo systemctl stop {server}"
    return f"stop that program, or run field.sh with another port (--http-port/--https-port {port})"


def check_port(
    port: int, address: str, udp: bool, what: str, ours: set[int], dns_shared_ok: bool = False
) -> Finding:
    proto = "udp" if udp else "tcp"
    held = [(pid, cmd) for pid, cmd in holders(port, address, udp) if pid not in ours]
    if not held and any(holders(port, address, udp)):
        return Finding(True, f"port {port}/{proto} ({what}) on {address}: this field set-up's")
    if not held:
        return Finding(True, f"port {port}/{proto} ({what}) on {address} is free")
    pid, cmd = held[0]
    if dns_shared_ok and "dnsmasq-shared.d" in cmd:
        return Finding(True, f"port {port}/{proto} ({what}): NetworkManager's hotspot DNS")
    who = f"{cmd.split(' ')[0]} (pid {pid})" if pid is not None else cmd
    return Finding(
        False, f"port {port}/{proto} ({what}) on {address} is taken by {who}", advice(port, cmd)
    )


def check_dns(name: str, address: str, server: str, port: int) -> Finding:
    query = dns.message.make_query(name, dns.rdatatype.A)
    where = f"{server}:{port}" if port != 53 else server
    try:
        answer = dns.query.udp(query, server, port=port, timeout=2)
    except (dns.exception.Timeout, OSError):
        return Finding(
            False,
            f"nothing answers DNS on {where}",
            "start ./deploy/field.sh --domain NAME (it runs the laptop's DNS), and check that "
            "the phones' network hands out this laptop as its DNS server",
        )
    got = sorted({str(r) for rrset in answer.answer for r in rrset if r.rdtype == dns.rdatatype.A})
    if got == [address]:
        return Finding(True, f"the laptop's DNS ({where}) answers {name} with {address}")
    said = ", ".join(got) or dns.rcode.to_text(answer.rcode())
    return Finding(
        False,
        f"the DNS on {where} answers {name} with {said}, not {address}",
        "restart ./deploy/field.sh --domain NAME with the hotspot's address (--address)",
    )


def check_served(name: str, address: str, https_port: int, crt: Path) -> Finding:
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # compared, not trusted
    try:
        with (
            socket.create_connection((address, https_port), timeout=3) as raw,
            context.wrap_socket(raw, server_hostname=name) as tls,
        ):
            served = tls.getpeercert(binary_form=True)
    except OSError as error:
        return Finding(
            False, f"nothing serves https on {address}:{https_port} ({error})", "start field.sh"
        )
    wanted = x509.load_pem_x509_certificate(crt.read_bytes()).public_bytes(
        serialization.Encoding.DER
    )
    if served != wanted:
        return Finding(
            False,
            f"https on {address}:{https_port} serves another certificate than {crt}",
            "restart ./deploy/field.sh --domain NAME",
        )
    return Finding(True, f"https://{name} on {address}:{https_port} serves that certificate")


def nm_dns(address: str, port: int) -> str | None:
    """The folder NetworkManager's hotspot DNS (a dnsmasq of its own on the hotspot's address)
    reads its extra configuration from, when it is the one answering there."""
    for _pid, cmd in holders(port, address, udp=True):
        for part in cmd.split():
            if part.startswith("--conf-dir=") and "dnsmasq-shared.d" in part:
                return part.split("=", 1)[1].split(",")[0]
    return None


def own_pids(state: Path) -> set[int]:
    pids = set()
    for file in (state / "run").glob("*.pid"):
        try:
            pids.add(int(file.read_text().strip()))
        except (OSError, ValueError):
            continue
    # The processes they started (sudo's child, dnsmasq after dropping privileges keeps its pid).
    children = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid in pids:
                children.add(int(proc.name))
    return pids | children


def when(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.astimezone()


def run_check(args: argparse.Namespace) -> int:
    state: Path = args.state
    game_ends = when(args.game_ends) if args.game_ends else datetime.now(UTC) + timedelta(days=1)
    findings: list[Finding] = []
    before, running = args.phase in ("before", "all"), args.phase in ("running", "all")
    address = args.address
    if address is None:
        found = lan_addresses()
        if not found:
            findings.append(
                Finding(
                    False,
                    "this laptop has no network address but loopback",
                    "turn the hotspot on, or join the travel router",
                )
            )
        address = found[0] if found else None
    elif before and address != "0.0.0.0":
        findings.append(check_address(address))
    dns_address = args.dns_address or address
    ours = own_pids(state) if args.phase == "all" else set()
    if args.domain and before:
        findings.extend(check_certificate(state, args.domain.lower(), game_ends))
    if address and before:
        if args.domain:
            for udp in (True, False):
                findings.append(check_port(args.dns_port, dns_address, udp, "DNS", ours, True))
        findings.append(check_port(args.http_port, address, False, "http", ours))
        findings.append(check_port(args.https_port, address, False, "https", ours))
    if args.domain and address and running:
        findings.append(check_dns(args.domain.lower(), address, dns_address, args.dns_port))
        crt, _ = certificate_files(state, args.domain.lower())
        if crt.exists():
            findings.append(check_served(args.domain.lower(), address, args.https_port, crt))
    for finding in findings:
        print(finding)
    problems = sum(not f.ok for f in findings)
    if problems:
        plural = problems > 1
        print(f"{problems} problem{'s' if plural else ''}: fix {'them' if plural else 'it'} first.")
    return 1 if problems else 0


def print_dates(crt: Path) -> int:
    cert = x509.load_pem_x509_certificate(crt.read_bytes())
    start, end = cert.not_valid_before_utc, cert.not_valid_after_utc
    left = end - datetime.now(UTC)
    issuer = cert.issuer.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
    print(f"  for:     {', '.join(cert_names(cert))}")
    print(f"  issuer:  {issuer[0].value if issuer else cert.issuer.rfc4514_string()}")
    print(f"  valid:   {start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M} UTC ({days(left)} left)")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="field.sh check", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check")
    check.add_argument("--state", type=Path, default=STATE)
    check.add_argument("--domain")
    check.add_argument("--address")
    check.add_argument("--dns-address")
    check.add_argument("--dns-port", type=int, default=53)
    check.add_argument("--http-port", type=int, default=80)
    check.add_argument("--https-port", type=int, default=443)
    check.add_argument("--game-ends", help="when the game ends (ISO time; default: in 24 hours)")
    check.add_argument("--phase", choices=("before", "running", "all"), default="all")
    dates = commands.add_parser("dates")
    dates.add_argument("certificate", type=Path)
    commands.add_parser("address")
    shared = commands.add_parser("nm-dns")
    shared.add_argument("--address", required=True)
    shared.add_argument("--dns-port", type=int, default=53)
    args = parser.parse_args(argv)
    if args.command == "dates":
        return print_dates(args.certificate)
    if args.command == "address":
        found = lan_addresses()
        print(found[0] if found else "")
        return 0 if found else 1
    if args.command == "nm-dns":
        folder = nm_dns(args.address, args.dns_port)
        print(folder or "")
        return 0 if folder else 1
    if args.game_ends:
        try:
            when(args.game_ends)
        except ValueError:
            parser.error(f"--game-ends {args.game_ends}: not a time like 2026-12-12T18:00")
    return run_check(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
