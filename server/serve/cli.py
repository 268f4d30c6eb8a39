"""`bijse serve`, `migrate`, `export`, `import` and `verify`."""

import argparse
import asyncio
import errno
import gc
import os
import socket
import sys
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit

import orjson
import uvicorn

import server
from server.serve.door import closing
from server.serve.head import TimelyHttpProtocol
from server.serve.intake import accepted, handed_over, open_files
from server.store import migrate
from server.store.database import BadDatabaseUrl, check_writable, parse_url
from server.web.forwarded import Proxies, behind
from server.web.origin import ca_page, loopback

DEFAULT_DATABASE = "sqlite:///bijse.db"


def worker_count(text: str) -> int:
    """A number of worker processes, or "auto": one for each core this process may run on (two
    workers on two cores measured 1.5 times the duels a second of one, on SQLite and PostgreSQL;
    README, "Speed")."""
    if text == "auto":
        return max(1, len(os.sched_getaffinity(0)))
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of workers nor auto") from None
    if count < 1:
        raise argparse.ArgumentTypeError("at least 1 worker")
    return count


def shard(text: str) -> tuple[int, int]:
    """`--worker n/N`: this is worker n of N."""
    n, _, count = text.partition("/")
    return int(n), int(count)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bijse", description="Bij se game server")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="migrate the database and run the server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--database-url", default=None, help="default: $DATABASE_URL or bijse.db")
    serve.add_argument(
        "--admin-token",
        default=os.environ.get("BIJSE_ADMIN_TOKEN"),
        help="only this token may create games",
    )
    serve.add_argument(
        "--workers",
        type=worker_count,
        default=os.environ.get("BIJSE_WORKERS", "auto"),  # argparse applies `type` to it
        help="worker processes, each owning a share of the games (default: one a core)",
    )
    serve.add_argument("--door-fd", type=int, default=None, help=argparse.SUPPRESS)
    serve.add_argument("--board-fd", type=int, default=None, help=argparse.SUPPRESS)
    serve.add_argument("--worker", type=shard, default=None, help=argparse.SUPPRESS)
    serve.add_argument(
        "--open-creation",
        action="store_true",
        default=os.environ.get("BIJSE_OPEN_CREATION", "") not in ("", "0", "off"),
        help="let anyone create games even where the server is reachable beyond this machine",
    )
    serve.add_argument(
        "--public-url",
        default=os.environ.get("BIJSE_PUBLIC_URL"),
        help="the URL phones reach the server at, for join links",
    )
    serve.add_argument(
        "--field-ca-page",
        default=os.environ.get("BIJSE_FIELD_CA_PAGE"),
        help="the http(s) page where phones get the CA the field's https is signed by; the "
        "console and the invite sheet send phones there first",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        default=os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1"),
        help="the proxies whose X-Forwarded-Host/-Proto/-For are believed (default: loopback)",
    )
    serve.add_argument(
        "--log-level",
        default=os.environ.get("BIJSE_LOG_LEVEL", "warning"),
        choices=["critical", "error", "warning", "info", "debug", "trace"],
        help="uvicorn's log level; info adds an access log (tokens in URLs are redacted)",
    )
    mig = commands.add_parser("migrate", help="bring the database schema up to date")
    mig.add_argument("--database-url", default=None)
    out = commands.add_parser("export", help="write a game's log as NDJSON, one event a line")
    out.add_argument("game_id")
    out.add_argument("--database-url", default=None)
    out.add_argument("--output", "-o", default="-", help="a file; default: standard output")
    into = commands.add_parser("import", help="load an exported log (it must verify)")
    into.add_argument("file", help="an exported NDJSON log; - for stdin")
    into.add_argument("--database-url", default=None)
    check = commands.add_parser("verify", help="check a log: seq, hash chain, seed, every die")
    check.add_argument("file", help="an exported NDJSON log, or the JSON of /events; - for stdin")
    args = parser.parse_args(argv)
    if args.command == "verify":  # a file alone: no database is opened
        from server.log.verify import main as verify

        return verify(args.file)
    url = args.database_url or os.environ.get("DATABASE_URL") or DEFAULT_DATABASE
    try:
        parsed = parse_url(url)
        check_writable(parsed)
        migrate.upgrade(parsed)
    except BadDatabaseUrl as error:
        return fail(str(error))
    except Exception as error:  # any driver's failure to connect: one line, not a traceback
        return fail(
            f"cannot open the database {parsed.render_as_string(hide_password=True)}: "
            f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        )
    if args.command == "migrate":
        print("database is up to date")
        return 0
    if args.command in ("export", "import"):
        return asyncio.run(archive_command(args, url))
    files = open_files()
    try:
        listener = None if args.door_fd is not None else bind(args.host, args.port)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            return fail(f"port {args.port} on {args.host} is in use")
        return fail(f"cannot listen on {args.host}:{args.port}: {error.strerror}")
    try:
        proxies = Proxies(args.forwarded_allow_ips)
    except ValueError as error:
        return fail(f"--forwarded-allow-ips: {error}")
    try:
        field_ca_page = ca_page(args.field_ca_page) if args.field_ca_page else None
    except ValueError as error:
        return fail(f"--field-ca-page: {error}")
    creation = "open" if args.open_creation or not reachable(args.host, args.public_url) else None
    if args.admin_token:
        creation = "admin"
    if listener is not None:  # the one process, or the door of several: not a worker
        workers = f" with {args.workers} workers" if args.workers > 1 else ""
        where = f"http://{args.host}:{listener.getsockname()[1]}"
        limit = f"; open files: up to {files:,} a process"
        print(f"Bij se serves {where} from {url}{workers}{limit}", flush=True)
        if not server.NATIVE:
            why = "BIJSE_PURE is set" if os.environ.get("BIJSE_PURE") else "they are stale"
            print(
                f"The rules and views run from source, not compiled ({why}): "
                "./deploy/setup.sh compiles them (a tenth less CPU a command).",
                flush=True,
            )
        if creation is None:
            print(
                "Game creation is closed: this server is reachable beyond this machine. Give it "
                "--admin-token (only that token creates games) or --open-creation.",
                flush=True,
            )
        if args.workers > 1:
            from server.serve.door import open_door

            return open_door(listener, args.workers)
    from server.web.app import create_app
    from server.web.socket_protocol import OPTIONS as SOCKET_OPTIONS

    app = create_app(
        url,
        admin_token=args.admin_token,
        open_creation=creation == "open",
        public_url=args.public_url,
        field_ca_page=field_ca_page,
        migrate_on_start=False,
        worker=args.worker,
        board_fd=args.board_fd,
    )
    config = uvicorn.Config(
        behind(app if args.door_fd is None else closing(app), proxies),
        log_level=args.log_level,
        **SOCKET_OPTIONS,
        proxy_headers=False,  # behind() applies them, the host included
        lifespan="on",
    )
    if args.door_fd is not None:  # a worker behind the door: connections come from it
        pipe = socket.socket(fileno=args.door_fd)
        Server(config, handed_over(pipe)).run(sockets=[pipe])
        return 0
    assert listener is not None
    Server(config, ((conn, b"") async for conn in accepted(listener))).run(sockets=[listener])
    return 0


GC_YOUNG = 50_000  # new containers between two collections of the youngest (Python: 700)


class Server(uvicorn.Server):
    """uvicorn, serving the connections `coming` yields (each with what was read of it
    already: the door reads a request's head), with what is loaded at startup kept out of the
    garbage collector's way. `run(sockets=...)`: where connections come from, closed at
    shutdown."""

    def __init__(
        self, config: uvicorn.Config, coming: AsyncIterator[tuple[socket.socket, bytes]]
    ) -> None:
        super().__init__(config)
        self.coming = coming

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=[])  # uvicorn accepts nothing itself: see intake.py
        # The modules, the rules and the app live as long as the process: frozen, they are not
        # scanned again by each full collection, which otherwise stalled a busy server for
        # 40 ms a few times a minute (bench.duels: p99 58 -> 32 ms).
        gc.collect()
        gc.freeze()
        # A command makes thousands of containers that die young by their reference counts (the
        # states, views and messages of a write that lives a few ms): scanned every 700, they
        # were found alive, moved on and scanned again. Every 50,000 they are mostly gone
        # (bench.duels, 1000 phones: 2,150 -> 2,590 duels/s, p99 140 -> 113 ms; RSS the same).
        gc.set_threshold(GC_YOUNG, 10, 10)
        self.serving = asyncio.get_running_loop().create_task(self.serve_coming())
        # Connections stop coming when the door is gone (killed, even): a worker must not serve
        # its games on alone, beside the workers of the next door.
        self.serving.add_done_callback(lambda _: setattr(self, "should_exit", True))

    async def serve_coming(self) -> None:
        loop = asyncio.get_running_loop()
        async for sock, head in self.coming:
            # What uvicorn's own startup() hands asyncio for each accepted connection, with a
            # head that must come in time (server/serve/head.py).
            protocol = partial(
                TimelyHttpProtocol,
                config=self.config,
                server_state=self.server_state,
                app_state=self.lifespan.state,
                head=head,
            )
            try:
                await loop.connect_accepted_socket(protocol, sock)
            except OSError:
                sock.close()  # gone before it was served

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.serving.cancel()  # no new connection while the open ones finish
        await super().shutdown(sockets=sockets)


def reachable(host: str, public_url: str | None) -> bool:
    """Whether phones beyond this machine reach the server: bound to a non-loopback address,
    or published at a public URL (behind a proxy on this machine)."""
    hosts = [host]
    if public_url:
        hosts.append(urlsplit(public_url).hostname or "")
    return not all(loopback(name) for name in hosts)


async def archive_command(args: argparse.Namespace, url: str) -> int:
    from server.log import admit, archive
    from server.log.verify import entries as read_entries
    from server.store import Store
    from server.web.api import NewGame
    from server.web.wire import sound

    store = Store.open(url)
    try:
        if args.command == "export":
            if await store.game(args.game_id) is None:
                return fail(f"no game {args.game_id} in this database")
            lines = await archive.export(store, args.game_id)
            text = "".join(orjson.dumps(line).decode() + "\n" for line in lines)
            if args.output == "-":
                sys.stdout.write(text)
            else:
                Path(args.output).write_text(text, encoding="utf-8")
            return 0
        try:
            source = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
            entries = read_entries(source)
            del source  # each entry holds its own line: the whole text need not stay as well
        except (OSError, UnicodeDecodeError, ValueError) as error:
            return fail(f"import: cannot read {args.file}: {error}")
        # The API's own bounds on what it is sent, which the rules do not know.
        bounds = admit.Bounds(new_game=NewGame, sent=sound)
        try:
            game_id, token = await archive.load(store, entries, bounds)
        except admit.Refused as error:
            print(f"bijse: import: {error}", file=sys.stderr)
            return 1
        except archive.Unwritable as error:
            return fail(f"import: {error}")
        except Exception as error:  # one line, never a traceback, whatever a log holds
            said = " ".join(str(error).split())[:200]
            return fail(f"import: failed: {type(error).__name__}: {said}")
        print(f"imported game {game_id}; organizer token {token}")
        return 0
    finally:
        await store.close()


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(2048)
    listener.set_inheritable(True)
    return listener


def fail(message: str) -> int:
    print(f"bijse: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
