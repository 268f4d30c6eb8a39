"""`bijse serve`, `bijse migrate` and `bijse verify`."""

import argparse
import errno
import os
import socket
import sys

import uvicorn

from server import migrate
from server.database import BadDatabaseUrl, check_writable, parse_url

DEFAULT_DATABASE = "sqlite:///bijse.db"


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
        "--public-url",
        default=os.environ.get("BIJSE_PUBLIC_URL"),
        help="the URL phones reach the server at, for join links",
    )
    mig = commands.add_parser("migrate", help="bring the database schema up to date")
    mig.add_argument("--database-url", default=None)
    check = commands.add_parser("verify", help="check a game log: seq, seed and every die")
    check.add_argument("file", help="an exported NDJSON log, or the JSON of /events; - for stdin")
    args = parser.parse_args(argv)
    if args.command == "verify":  # a file alone: no database is opened
        from server.verify import main as verify

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
    try:
        listener = bind(args.host, args.port)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            return fail(f"port {args.port} on {args.host} is in use")
        return fail(f"cannot listen on {args.host}:{args.port}: {error.strerror}")
    from server.app import create_app

    app = create_app(
        url, admin_token=args.admin_token, public_url=args.public_url, migrate_on_start=False
    )
    # No permessage-deflate: a view is a few KiB, and compressing every one costs the server
    # more CPU than the bytes it saves.
    config = uvicorn.Config(
        app,
        log_level="warning",
        ws_max_size=1024 * 1024,
        ws_per_message_deflate=False,
        proxy_headers=True,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    print(f"Bij se serves http://{args.host}:{listener.getsockname()[1]} from {url}", flush=True)
    server.run(sockets=[listener])
    return 0


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
