"""`ghostbook [ROOT] [--host H] [--port P] [--token T] [--no-browser] [--allow-remote] [--gateway-url URL]`."""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import socket
import threading
import webbrowser
from pathlib import Path

import uvicorn

from ghostbook.kernel.gateway_client import GatewayConfig
from ghostbook.web.config import ServerConfig


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ghostbook", description="Serve the notebooks under ROOT.")
    parser.add_argument("root", nargs="?", default=".", help="notebook folder (default: current folder)")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8888, help="port (default 8888; 0 picks a free one)")
    parser.add_argument("--token", default=None, help="access token (default: a fresh random one)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument("--allow-remote", action="store_true",
                        help="accept requests whose Host is not loopback (needed behind a proxy)")
    parser.add_argument("--gateway-url", default=None, metavar="URL",
                        help="run kernels on this Jupyter Kernel/Enterprise Gateway (default: $JUPYTER_GATEWAY_URL; "
                             "unset: kernels run on this machine)")
    parser.add_argument("--gateway-token", default=None, metavar="TOKEN",
                        help="the gateway's auth token (default: $JUPYTER_GATEWAY_AUTH_TOKEN)")
    parser.add_argument("--max-upload-mb", type=float, default=_env_float("GHOSTBOOK_MAX_UPLOAD_MB", 100), metavar="MB",
                        help="the largest file the file browser accepts (default: $GHOSTBOOK_MAX_UPLOAD_MB or 100)")
    parser.add_argument("--log-level", default="warning")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    root = Path(args.root).expanduser().resolve()
    if not root.is_dir():
        print(f"ghostbook: {root} is not a folder")
        return 2
    try:
        gateway = GatewayConfig.from_env(args.gateway_url, args.gateway_token)
    except ValueError as exc:
        print(f"ghostbook: {exc}")
        return 2
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted sockets inherit this: without it, Nagle's algorithm and delayed ACKs add ~40 ms to
    # small websocket messages (the stall jupyter_server shows).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        print(f"ghostbook: cannot listen on {args.host}:{args.port}: {exc.strerror}")
        return 2
    port = sock.getsockname()[1]
    config = ServerConfig(root=root, token=args.token or secrets.token_hex(24), host=args.host, port=port,
                          allow_remote=args.allow_remote, gateway=gateway,
                          max_upload_bytes=int(args.max_upload_mb * 1024 * 1024))
    from ghostbook.web.app import create_app

    app = create_app(config)
    shown_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    url = f"http://{shown_host}:{port}/?token={config.token}"
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    print(f"Ghostbook is serving {root}\n    {url}", flush=True)
    if gateway is not None:
        print(f"Kernels run on the gateway at {gateway.url}", flush=True)
    if not args.no_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level=args.log_level, ws_max_size=16 * 1024 * 1024,
                                           timeout_graceful_shutdown=5))
    server.run(sockets=[sock])
    return 0
