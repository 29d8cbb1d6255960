"""`simnode run | replay | reindex` — the console entry point.

The node's modules are imported inside the commands, after `main` has made simnode's changes to
its libraries (patches.py: its dataclass methods kept compiled, py-evm's precompiles deferred)
and deferred aiohttp's client (see lazy_package): a node serves with aiohttp's server half only.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import allocator, compiled, lazy_package, patches
from .errors import NodeError

if TYPE_CHECKING:
    from .config import NodeConfig
    from .node import Node


def _positive_port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("port must be in 0..65535 (0 picks a free port)")
    return port


def _level(text: str) -> str:
    from .config import LOG_LEVELS

    if text.upper() not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"log level must be one of {', '.join(LOG_LEVELS)}")
    return text.upper()


def _rate(text: str) -> int:
    """`N` or `N/s`: requests per second, N >= 1."""
    digits = text.removesuffix("/s")
    if not (digits.isascii() and digits.isdigit()) or int(digits) < 1:
        raise argparse.ArgumentTypeError(
            "the rate limit is a whole number of requests per second (N or N/s), at least 1")
    return int(digits)


def _block_number(text: str) -> int:
    from .formats.errors import FormatError
    from .formats.jsonnum import hex_or_decimal

    try:
        return hex_or_decimal(text)
    except FormatError:
        raise argparse.ArgumentTypeError("the fork block is a block number (decimal or 0x-hex), at least 0") from None


def version_text() -> str:
    """simnode's version and which core runs (compiled.py): `simnode --version`."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("simnode")
    except PackageNotFoundError:  # a source tree on sys.path, not installed
        number = "unknown"
    return f"simnode {number} (core: {compiled.core()})"


class _Version(argparse.Action):
    """argparse's version action, with the text made only when asked for."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0,
                         help="print the version and the core (compiled or pure), then exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(version_text())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="simnode", description="A single-process simulated Avalanche node.")
    parser.add_argument("--version", action=_Version)
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
    run.add_argument("--no-index", action="store_true",
                     help="do not index accepted blocks (no Data API data; `simnode reindex` catches up later)")
    run.add_argument("--no-relayer", action="store_true",
                     help="do not relay ICM messages in-process (deliver them yourself; simnode.setRelayer "
                          "switches it)")
    run.add_argument("--log-level", type=_level, default="INFO", help="OFF|FATAL|ERROR|WARN|INFO|TRACE|DEBUG|VERBO")
    run.add_argument("--data-api-rate-limit", type=_rate, default=0, metavar="N",
                     help="Data/Metrics API: at most N requests per second per API key or client (default: no limit)")
    run.add_argument("--chain-config-dir", type=Path, default=None,
                     help="per-chain config folders, <chain ID>/config.json and upgrade.json, as AvalancheGo's")
    run.add_argument("--fork-url", default=None, metavar="URL",
                     help="fork the live network served at URL (an AvalancheGo node's base URL, or its "
                          "/ext/bc/C/rpc): its state is read on demand and kept in the data dir")
    run.add_argument("--fork-block", type=_block_number, default=None, metavar="N",
                     help="with --fork-url: the C-Chain block to fork at (default: the upstream's last accepted)")
    run.add_argument("--fork-timeout", type=float, default=30.0, metavar="S",
                     help="with --fork-url: seconds one upstream read may take, retries included (default 30)")
    run.add_argument("--scenario", type=Path, default=None,
                     help="preload a scenario file (its [network] seed, start time and block time apply)")
    run.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                     help="override a scenario [vars] entry (repeatable)")
    run.add_argument("--record-scenario", type=Path, default=None, metavar="FILE",
                     help="record every state-changing request and the blocks built into a scenario file "
                          "(`simnode replay FILE` reproduces the chains); needs a fresh data dir")
    replay = sub.add_parser("replay", help="run a scenario on a virtual clock as fast as possible")
    replay.add_argument("file", type=Path, help="the scenario (TOML)")
    replay.add_argument("--check", type=Path, default=None, metavar="GOLDEN",
                        help="compare the run with a golden trace; report the first divergence")
    replay.add_argument("--record", type=Path, default=None, metavar="GOLDEN", help="write the run's golden trace")
    replay.add_argument("--serve", action="store_true", help="keep the node up afterwards (until Ctrl-C)")
    replay.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                        help="override a scenario [vars] entry (repeatable)")
    replay.add_argument("--data-dir", type=Path, default=None, help="keep the database here (default: ephemeral)")
    replay.add_argument("--http-host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    replay.add_argument("--http-port", type=_positive_port, default=0, help="port (default 0 = a free port)")
    replay.add_argument("--transport", choices=("inprocess", "http"), default="inprocess",
                        help="drive the node in-process (default; same handlers, no socket) or over HTTP")
    replay.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    replay.add_argument("--target", default=None, metavar="URL",
                        help="run the steps over HTTP against a live AvalancheGo-compatible node (its base URL, "
                             "e.g. http://127.0.0.1:9650) on its wall clock, instead of a fresh simnode")
    replay.add_argument("--skip-unsupported", action="store_true",
                        help="with --target: leave out the steps the target cannot do (time travel, dev methods) "
                             "instead of refusing to run")
    proxy = sub.add_parser("proxy", help="forward everything to an AvalancheGo-compatible node and record the "
                                         "session into a scenario file")
    proxy.add_argument("--upstream", required=True, metavar="URL",
                       help="the node's base URL (e.g. http://127.0.0.1:9650)")
    proxy.add_argument("--record-scenario", type=Path, required=True, metavar="FILE", help="the scenario file to write")
    proxy.add_argument("--http-host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    proxy.add_argument("--http-port", type=_positive_port, default=9660, help="port (default 9660; 0 = a free port)")
    export = sub.add_parser("export-network", help="write what AvalancheGo needs to run this network on real nodes "
                                                  "(genesis, staking keys, L1 genesis and steps; node stopped)")
    export.add_argument("dir", type=Path, help="the folder to write (genesis.json, nodes/, l1s/, README.md)")
    export.add_argument("--data-dir", type=Path, default=None,
                        help="the stopped node's database folder (default ~/.simnode/network-<source id>)")
    export.add_argument("--nodes", type=int, default=5, help="how many nodes (the genesis stakers; default 5)")
    export.add_argument("--network-id", type=int, default=1337,
                        help="the exported network's ID (default 1337; AvalancheGo takes a genesis file for any ID "
                             "but 1, 5 and 12345)")
    export.add_argument("--source-network-id", type=int, default=12345,
                        help="the network ID the data dir was created with (default 12345)")
    export.add_argument("--source-genesis", type=Path, default=None,
                        help="the genesis file the data dir was created with, if any")
    export.add_argument("--source-seed", type=int, default=0,
                        help="the seed the node ran with (`run --seed`, a scenario's [network] seed; default 0): "
                             "it names the in-process relayer's account")
    reindex = sub.add_parser("reindex", help="rebuild every index row from the chains' blocks (node stopped)")
    reindex.add_argument("--data-dir", type=Path, default=None,
                         help="database folder (default ~/.simnode/network-<id>)")
    reindex.add_argument("--network-id", type=int, default=12345, help="network ID (default 12345, local)")
    reindex.add_argument("--genesis", type=Path, default=None, help="the genesis file the data dir was created with")
    return parser


def _refusals() -> tuple[type[Exception], ...]:
    """The errors a command reports in one line (an except clause evaluates this only when an
    exception reaches it, long after main made simnode's changes and the node's modules loaded)."""
    from .genesis import GenesisError

    return NodeError, GenesisError


def config_from_args(args: argparse.Namespace) -> NodeConfig:
    from .config import NodeConfig

    if args.block_time < 0:
        raise SystemExit("simnode: --block-time must be >= 0")
    if args.chain_config_dir is not None and not args.chain_config_dir.is_dir():
        raise SystemExit(f"simnode: cannot read directory: {args.chain_config_dir}")
    if args.fork_block is not None and not args.fork_url:
        raise SystemExit("simnode: --fork-block needs --fork-url")
    if args.fork_timeout <= 0:
        raise SystemExit("simnode: --fork-timeout must be > 0")
    return NodeConfig(
        http_host=args.http_host, http_port=args.http_port, network_id=args.network_id,
        genesis_file=args.genesis, data_dir=args.data_dir, ephemeral=args.ephemeral,
        api_admin_enabled=args.api_admin_enabled, seed=args.seed, clock_mode=args.clock,
        log_level=args.log_level, block_time=args.block_time, data_api_rate_limit=args.data_api_rate_limit,
        chain_config_dir=args.chain_config_dir, index=not args.no_index, relayer=not args.no_relayer,
        fork_url=args.fork_url, fork_block=args.fork_block, fork_timeout=args.fork_timeout,
    )


def ready_line(node: Node) -> str:
    from .api.listening import node_urls

    u = node_urls(node.url)
    return (f"simnode ready: network {node.genesis.network_name} ({node.config.network_id}) at {u['base']} "
            f"- info {u['info']}, X {u['X']}, P {u['P']}, C {u['C']} (ws {u['C_ws']}), "
            f"explorer {u['explorer']}, docs {u['docs']} (core: {compiled.core()})")


def _recorder_for(node: Node, path: Path | None) -> Any:
    """A Recorder for `simnode run --record-scenario` (None without the flag); refuses a data dir
    that holds chains already, which a replay from genesis could not reproduce."""
    if path is None:
        return None
    from .scenario.recorder import Recorder

    if node.config.fork_url:
        raise NodeError("--record-scenario cannot record a fork: a replay starts from genesis, not from a live "
                        "network's state")
    data_dir = node.config.resolved_data_dir()
    if not node.config.ephemeral and (data_dir / "db").exists():
        raise NodeError(f"--record-scenario needs a fresh data dir (a replay starts from genesis), and {data_dir} "
                        "has chains already: add --ephemeral or give an empty --data-dir")
    if path.parent and not path.parent.is_dir():
        raise NodeError(f"cannot write {path}: no such directory {path.parent}")
    return Recorder(node, path)


async def serve(config: NodeConfig, record: Path | None = None) -> None:
    from .node import Node

    node = Node(config)
    recorder = _recorder_for(node, record)
    if recorder is not None:
        recorder.start()  # before the node opens its data dir: the replay starts at this time
    try:
        await node.start()
    except BaseException:
        if recorder is not None:
            recorder.close()
        raise
    # Start-up makes ~130k objects (modules, classes, tables) that live as long as the process;
    # collecting meanwhile would find ~1k, so gc waits until here, and frozen they are not
    # scanned again by later collections.
    gc.freeze()
    gc.enable()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    if recorder is not None:
        print(f"recording the session into {record}", flush=True)
    print(ready_line(node), flush=True)
    trimmer = asyncio.create_task(_trim_every(allocator.TRIM_INTERVAL_S))
    try:
        await stop.wait()
    finally:
        trimmer.cancel()
        if recorder is not None:
            recorder.close()
        await node.stop()


async def _trim_every(seconds: float) -> None:
    """Free allocator pages back to the system now and then (allocator.py says why)."""
    while True:
        await asyncio.sleep(seconds)
        allocator.trim()


def _vars(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise SystemExit(f"simnode: --var takes NAME=VALUE, got {item!r}")
        out[name.strip()] = value.strip()
    return out


def _announce_and_wait_for_signal(line: str) -> None:
    """Print the ready line, then block until SIGINT/SIGTERM. The handlers go in first: a
    caller that reads the line and at once sends SIGTERM must get a clean exit."""
    import threading

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    print(line, flush=True)
    while not stop.wait(0.5):
        pass


def run_scenario_devnet(args: argparse.Namespace) -> int:
    """`simnode run --scenario FILE`: a wall-clock devnet with the scenario run into it first."""
    from .node import Node, NodeThread
    from .scenario import ScenarioError, load_scenario, run_on

    try:
        scenario = load_scenario(args.scenario, vars=_vars(args.var))
    except ScenarioError as exc:
        print(f"simnode: {exc}", file=sys.stderr)
        return 1
    config = config_from_args(args)
    net = scenario.network
    config = config.with_(
        seed=net.get("seed", config.seed), block_time=net.get("block_time", config.block_time),
        network_id=net.get("network_id", config.network_id), start_time_ms=net.get("start_time"),
        genesis_file=(scenario.base_dir / net["genesis"]) if "genesis" in net else config.genesis_file)
    try:
        node = Node(config)
        recorder = _recorder_for(node, args.record_scenario)
        handle = NodeThread(node)
        handle.start(prepare=recorder.start if recorder is not None else None)
    except _refusals() as exc:
        print(f"simnode: {exc}", file=sys.stderr)
        return 1
    with handle:
        try:
            try:
                result = run_on(handle, scenario, progress=None, out=sys.stdout)
            except ScenarioError as exc:
                print(f"simnode: {args.scenario}: {exc}", file=sys.stderr)
                return 1
            print(f"scenario {scenario.name or args.scenario.name}: {result.stats.summary()}", file=sys.stderr)
            if recorder is not None:
                print(f"recording the session into {args.record_scenario}", flush=True)
            _announce_and_wait_for_signal(ready_line(handle.node))
        finally:
            if recorder is not None:
                handle.call(recorder.close)
    return 0


def target_command(args: argparse.Namespace) -> int:
    """`simnode replay FILE --target URL`."""
    from .scenario import ScenarioError
    from .scenario.target import run_on_target

    given = [flag for flag, on in (("--check", args.check), ("--record", args.record), ("--serve", args.serve),
                                   ("--data-dir", args.data_dir)) if on]
    if given:
        print(f"simnode: {', '.join(given)} cannot be used with --target (the target keeps its own chains)",
              file=sys.stderr)
        return 2
    try:
        result = run_on_target(args.file, args.target, vars=_vars(args.var), skip_unsupported=args.skip_unsupported,
                               progress=None if not args.quiet else False, out=None if args.quiet else sys.stdout)
    except ScenarioError as exc:
        print(f"simnode: {exc}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"ran {result.scenario.name or args.file.name} on {args.target}: {result.stats.summary()}",
              file=sys.stderr)
    return 0


def replay_command(args: argparse.Namespace) -> int:
    from .scenario import ScenarioError, replay

    if args.target is not None:
        return target_command(args)
    if args.skip_unsupported:
        print("simnode: --skip-unsupported goes with --target", file=sys.stderr)
        return 2

    def serve(handle: object) -> None:
        _announce_and_wait_for_signal(ready_line(handle.node))  # type: ignore[attr-defined]

    try:
        result = replay(args.file, vars=_vars(args.var), check=args.check, record=args.record,
                        data_dir=args.data_dir, progress=None if not args.quiet else False,
                        out=None if args.quiet else sys.stdout, transport=args.transport,
                        serve=serve if args.serve else None, http_port=args.http_port,
                        http_host=args.http_host)
    except ScenarioError as exc:
        print(f"simnode: {exc}", file=sys.stderr)
        return 1
    except _refusals() as exc:
        print(f"simnode: {exc}", file=sys.stderr)
        return 1
    if not args.quiet:
        s = result.stats
        print(f"replayed {result.scenario.name or args.file.name}: {s.summary()}", file=sys.stderr)
        if args.record:
            print(f"golden trace written to {args.record}", file=sys.stderr)
        if args.check:
            print(f"matches the golden trace {args.check}", file=sys.stderr)
    return 0


def reindex_command(args: argparse.Namespace) -> int:
    """Delete the index namespace and derive every row again from the stored blocks."""
    from .config import NodeConfig
    from .index import rebuild
    from .node import Node

    config = NodeConfig(data_dir=args.data_dir, network_id=args.network_id, genesis_file=args.genesis, index=False,
                        clock_mode="virtual", log_level="WARN")
    db = config.resolved_data_dir() / "db"
    if not db.is_dir():
        print(f"simnode: no database in {db.parent}", file=sys.stderr)
        return 1
    node = Node(config)
    try:
        node.open_offline()
        rows = rebuild(node.store, list(node.chains.values()), progress=lambda line: print(line, flush=True))
    except _refusals() as exc:
        print(f"simnode: {exc}", file=sys.stderr)
        return 1
    finally:
        asyncio.run(node.stop())
    print(f"reindexed {db.parent}: {rows} index rows", flush=True)
    return 0


def proxy_command(args: argparse.Namespace) -> int:
    """`simnode proxy --upstream URL --record-scenario FILE`."""
    from .scenario.proxy import ProxyError, serve_proxy

    if not args.record_scenario.parent.is_dir():
        print(f"simnode: cannot write {args.record_scenario}: no such directory", file=sys.stderr)
        return 1

    def ready(url: str) -> None:
        print(f"simnode proxy ready at {url}, forwarding to {args.upstream}; recording the session into "
              f"{args.record_scenario}", flush=True)
    try:
        asyncio.run(serve_proxy(args.upstream, args.record_scenario, args.http_host, args.http_port, ready))
    except ProxyError as exc:
        print(f"simnode: {exc}", file=sys.stderr)
        return 1
    return 0


def export_command(args: argparse.Namespace) -> int:
    from .scenario.export import ExportError, export_network

    try:
        result = export_network(args.dir, data_dir=args.data_dir, source_network_id=args.source_network_id,
                                source_genesis=args.source_genesis, source_seed=args.source_seed, nodes=args.nodes,
                                network_id=args.network_id)
    except ExportError as exc:
        print(f"simnode: {exc}", file=sys.stderr)
        return 1
    except _refusals() as exc:
        print(f"simnode: {exc}", file=sys.stderr)
        return 1
    from .formats.ids import node_id_to_str

    print(f"exported network {result.network_id} to {result.directory}: genesis.json, {len(result.nodes)} node(s)"
          + (f", {len(result.l1s)} L1(s) and recreate-l1s.toml" if result.l1s else "") + ", README.md")
    for m in result.nodes:
        print(f"  {m.name}: {node_id_to_str(m.node_id)}")
    for what in result.left_out:
        print(f"  not carried over: {what}")
    return 0


def main(argv: list[str] | None = None) -> int:
    patches.install(evm=False)  # py-evm's: when the node loads it
    args = build_parser().parse_args(argv)
    lazy_package.defer_init("aiohttp")
    if args.command == "replay":
        return replay_command(args)
    if args.command == "reindex":
        return reindex_command(args)
    if args.command == "export-network":
        return export_command(args)
    if args.command == "proxy":
        return proxy_command(args)
    if args.command == "run" and args.scenario is not None:
        return run_scenario_devnet(args)
    if args.command == "run":
        allocator.limit_arenas()
        gc.disable()  # until the node is up (serve enables it)
        try:
            import uvloop
            uvloop.run(serve(config_from_args(args), args.record_scenario))
        except _refusals() as exc:
            print(f"simnode: {exc}", file=sys.stderr)
            return 1
        finally:
            gc.enable()
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
