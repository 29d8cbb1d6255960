"""`simnode run` — the console entry point."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path

from .config import LOG_LEVELS, NodeConfig
from .errors import NodeError
from .node import Node, node_urls


def _positive_port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("port must be in 0..65535 (0 picks a free port)")
    return port


def _level(text: str) -> str:
    if text.upper() not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"log level must be one of {', '.join(LOG_LEVELS)}")
    return text.upper()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="simnode", description="A single-process simulated Avalanche node.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="start a node and serve its APIs")
    run.add_argument("--http-host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    run.add_argument("--http-port", type=_positive_port, default=9650, help="port (default 9650; 0 = a free port)")
    run.add_argument("--network-id", type=int, default=12345, help="network ID (default 12345, local)")
    run.add_argument("--genesis", type=Path, default=None, help="an AvalancheGo genesis JSON file")
    run.add_argument("--data-dir", type=Path, default=None, help="database folder (default ~/.simnode/network-<id>)")
    run.add_argument("--ephemeral", action="store_true", help="use a temporary data dir, removed on exit")
    run.add_argument("--api-admin-enabled", action="store_true", help="serve /ext/admin and /ext/bc/C/admin")
    run.add_argument("--seed", type=int, default=0, help="seed of every key and random choice the node makes")
    run.add_argument("--clock", choices=("wall", "virtual"), default="wall", help="wall (default) or virtual time")
    run.add_argument("--block-time", type=float, default=0.0,
                     help="C-Chain: mine every N seconds (default 0 = a block as soon as a tx arrives)")
    run.add_argument("--log-level", type=_level, default="INFO", help="OFF|FATAL|ERROR|WARN|INFO|TRACE|DEBUG|VERBO")
    return parser


def config_from_args(args: argparse.Namespace) -> NodeConfig:
    if args.block_time < 0:
        raise SystemExit("simnode: --block-time must be >= 0")
    return NodeConfig(
        http_host=args.http_host, http_port=args.http_port, network_id=args.network_id,
        genesis_file=args.genesis, data_dir=args.data_dir, ephemeral=args.ephemeral,
        api_admin_enabled=args.api_admin_enabled, seed=args.seed, clock_mode=args.clock,
        log_level=args.log_level, block_time=args.block_time,
    )


def ready_line(node: Node) -> str:
    u = node_urls(node)
    return (f"simnode ready: network {node.genesis.network_name} ({node.config.network_id}) at {u['base']} "
            f"- info {u['info']}, X {u['X']}, P {u['P']}, C {u['C']} (ws {u['C_ws']})")


async def serve(config: NodeConfig) -> None:
    node = Node(config)
    await node.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(ready_line(node), flush=True)
    try:
        await stop.wait()
    finally:
        await node.stop()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "run":
        try:
            import uvloop
            uvloop.run(serve(config_from_args(args)))
        except NodeError as exc:
            print(f"simnode: {exc}", file=sys.stderr)
            return 1
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
