"""Node: the composition root. Opens the store, the clock and the genesis, builds the chains,
serves HTTP, and offers the in-process Python API (`Node.start_in_thread`, async `start/stop`).
The layers below reach it through the Protocols they declare, which it satisfies structurally:
the API's NodeServices (api/node_services.py) and the chain manager's ChainHost (chain_manager.py).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from aiohttp import web

from . import logs, patches
from .api import admin as admin_api
from .api import info as info_api
from .api import reset as reset_rpc
from .api import simnode as simnode_api
from .api import warp_rpc
from .api.health import health_endpoints
from .api.listening import bind_listener, node_urls
from .api.server import build_app, disabled_endpoint
from .api.fasthttp import FastSockSite
from .chain_manager import ChainManager
from .clock import Clock, VirtualClock, WallClock
from .config import DEFAULT_VIRTUAL_START_MS, NodeConfig
from .errors import NodeError
from .profiling import Profiler
from .formats.ids import AVM_VM_ID, EVM_VM_ID, PLATFORM_VM_ID, SUBNET_EVM_VM_ID, ZERO_ID, id_to_str, node_id_to_str
from .genesis import Genesis, build_genesis, load_genesis, load_network_genesis, rebased_start_time, staker_keys
from .index import Indexer
from .webhooks.service import WebhookService
from .store import META, Snapshots, Store
from .vms.avm import service as avm_service
from .vms.chain_context import BlockBuilding, Chain, ChainContext
from .vms.platform import service as platform_service
from .vms.platform.vm import PlatformVM
from .vms.primary import BootstrappingChain, DeferredChain, build_primary_chains
from .signing.aggregator import Aggregator
from .signing.justify import ChainWarpBackend
from .startup import load_deferred, short_switch_interval, warm_engines
from .icm.relayer_account import RELAYER_FUNDS, relayer_address
from .signing.signer import PlatformValidators, WarpSigner
from .warp.keystore import Keystore

log = logging.getLogger("simnode")

_GENESIS_TIME_KEY = META + b"genesis-time"


@runtime_checkable
class _SignsWarp(ChainWarpBackend, Protocol):
    """A chain whose validators sign its Warp messages and blocks (the EVM chains)."""


# /ext/<alias> -> /ext/<target>, as AvalancheGo registers them for the primary chains.
DEFAULT_ENDPOINT_ALIASES = {"X": "bc/X", "avm": "bc/X", "P": "bc/P", "platform": "bc/P"}


class Node:
    def __init__(self, config: NodeConfig | None = None) -> None:
        patches.install(evm=False)  # py-evm's: when its chains load (load_deferred)
        self.config = config or NodeConfig()
        self.genesis: Genesis = (
            load_genesis(self.config.genesis_file) if self.config.genesis_file
            else load_network_genesis(self.config.network_id)
        )
        if self.genesis.network_id != self.config.network_id:
            self.config = self.config.with_(network_id=self.genesis.network_id)
        # Genesis stakers sign with the keys their genesis lists when simnode holds those secrets;
        # the others get seed-derived keys, which the genesis the chains start from then lists.
        keys = staker_keys(self.genesis.config, self.config.seed)
        if keys.derived:
            self.genesis = build_genesis(keys.config, self.genesis.start_time)
        self._derived_signers = keys.derived
        self.keystore = Keystore(self.config.seed)
        for secret in keys.secrets.values():
            self.keystore.add(secret)
        self.clock: Clock = (
            VirtualClock(self.config.start_time_ms if self.config.start_time_ms is not None
                         else DEFAULT_VIRTUAL_START_MS)
            if self.config.clock_mode == "virtual" else WallClock()
        )
        self._tmpdir: str | None = None
        self.store: Store | None = None
        self.chains: dict[bytes, Chain] = {}
        self._endpoints: dict[bytes, tuple[Chain, dict[str, Any]]] = {}  # chain ID -> (chain, its endpoints)
        self._aliases: dict[str, bytes] = {}
        self._chain_aliases: dict[bytes, list[str]] = {}
        self.endpoint_aliases: dict[str, str] = dict(DEFAULT_ENDPOINT_ALIASES)
        self.node_endpoints: dict[str, Any] = {}
        # bumped by every change of what a path resolves to (chains, aliases, endpoints, the
        # observer): the HTTP fast path keeps its resolved routes while it stays the same
        self.routes_version = 0
        self.genesis_time: int = 0
        self._deferred: list[DeferredChain] = []
        self.snapshots: Snapshots | None = None
        self.indexer: Indexer | None = None
        self.webhooks = WebhookService(self)  # the Webhooks API: fed accepted blocks after the index
        self.warp_signer: WarpSigner | None = None  # the validators signing Warp messages
        self.aggregator: Aggregator | None = None  # the signature aggregator's core
        self.warp_validators = PlatformValidators(self.chains)  # what the EVM chains verify predicates with
        self.relayer: Any = None  # the in-process ICM relayer (relayer.py), made with the first EVM chain
        self.relayer_on: bool = self.config.relayer
        self.fork: Any = None  # the forked network's upstream (simnode/fork) with --fork-url
        self.block_building = BlockBuilding()  # shared by every chain (off while a recorded session replays)
        # Sees every endpoint table as it is built (a recorder wraps the state-changing methods):
        # observer(chain, endpoints), chain None for the node's own endpoints. None costs nothing.
        self.request_observer: Callable[[Chain | None, dict[str, Any]], None] | None = None
        # The node is the first genesis staker (a genesis has at least one): its node ID and BLS
        # key are that validator's.
        self.node_id: bytes = self.genesis.config.initial_stakers[0].node_id
        self.bls_key = keys.secrets[self.node_id]
        self.profiler = Profiler(lambda: self.data_dir / "profiles")
        self.chain_manager = ChainManager(self)  # L1 chains the P-Chain records (simnode/chain_manager.py)
        self._runner: web.AppRunner | None = None
        self._clock_task: asyncio.Task[None] | None = None
        self._stopping = False
        self._clock_wakeup: asyncio.Event | None = None
        self.port: int = 0
        self.data_dir: Path = Path()
        self._base_genesis = self.genesis  # what a reset that leaves a fork starts from again
        self._base_network_id = self.config.network_id

    # ----------------------------------------------------------------------------- identity

    @functools.cached_property
    def node_id_str(self) -> str:
        return node_id_to_str(self.node_id)

    @property
    def url(self) -> str:
        host = self.config.http_host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    # ----------------------------------------------------------------------------- chains and aliases

    def chain_by_alias(self, ref: str) -> Chain | None:
        cid = self._aliases.get(ref)
        return None if cid is None else self.chains.get(cid)

    def aliases_of(self, chain_id: bytes) -> list[str]:
        return list(self._chain_aliases.get(chain_id, []))

    def add_chain_alias(self, chain_id: bytes, alias: str) -> None:
        if alias in self._aliases:
            raise NodeError(f"alias ({alias}) is already mapped to an ID")
        self._aliases[alias] = chain_id
        self._chain_aliases.setdefault(chain_id, []).append(alias)
        self.routes_version += 1

    def register_chain(self, chain: Chain) -> None:
        self.chains[chain.chain_id] = chain
        self.routes_version += 1
        self._sign_for(chain)
        for alias in (*chain.default_aliases, id_to_str(chain.chain_id)):
            if alias not in self._aliases:
                self.add_chain_alias(chain.chain_id, alias)

    def _platform(self) -> PlatformVM:
        platform = self.chains[ZERO_ID]
        if not isinstance(platform, PlatformVM):
            raise TypeError(f"the P-Chain is a {type(platform).__name__}, not a PlatformVM")
        return platform

    def _sign_for(self, chain: Chain) -> None:
        """An EVM chain's validators sign its accepted messages and blocks (ChainWarpBackend)."""
        if self.warp_signer is not None and isinstance(chain, _SignsWarp):
            self.warp_signer.register_chain(chain.chain_id, chain)
            if self.relayer is None:
                from .relayer import Relayer
                self.relayer = Relayer(self)
            self.relayer.attach(chain)

    def set_relayer(self, on: bool) -> None:
        """Switch the in-process ICM relayer (off: messages wait for manual relaying, or for it to be on)."""
        self.relayer_on = bool(on)
        if self.relayer is not None:
            self.relayer.flush()

    def unregister_chain(self, chain_id: bytes) -> None:
        """Forget a chain and every alias of it (a revert removed its CreateChainTx)."""
        self.chains.pop(chain_id, None)
        self.routes_version += 1
        if self.warp_signer is not None:
            self.warp_signer.backends.pop(chain_id, None)
        self._endpoints.pop(chain_id, None)
        for alias in self._chain_aliases.pop(chain_id, []):
            if self._aliases.get(alias) == chain_id:
                del self._aliases[alias]

    def chain_endpoints(self, chain: Chain) -> dict[str, Any]:
        """The HTTP endpoints of a running chain by sub-path ("" for /ext/bc/<chain>, "/rpc", "/ws",
        "/avax", "/admin"), built by its VM's service module on first use."""
        cached = self._endpoints.get(chain.chain_id)
        if cached is not None and cached[0] is chain:
            return cached[1]
        endpoints = build_chain_endpoints(chain)
        if self.warp_signer is not None and self.aggregator is not None and hasattr(chain, "accepted_message"):
            warp_rpc.register(endpoints["/rpc"], chain, self)
        if chain.chain_id == self.genesis.c_chain_id and "/rpc" in endpoints:
            reset_rpc.register(endpoints["/rpc"], self)  # anvil_reset / hardhat_reset (re-)fork the node
        if "/admin" in endpoints and not self.config.api_admin_enabled:
            endpoints["/admin"] = disabled_endpoint("C-Chain admin API", "--api-admin-enabled")
        if self.request_observer is not None:
            self.request_observer(chain, endpoints)
        self._endpoints[chain.chain_id] = (chain, endpoints)
        return endpoints

    def observe_requests(self, observer: Callable[[Chain | None, dict[str, Any]], None]) -> None:
        """Hand `observer` every endpoint table, those built already and those to come."""
        self.request_observer = observer
        if self.node_endpoints:
            observer(None, self.node_endpoints)
        for chain, endpoints in list(self._endpoints.values()):
            observer(chain, endpoints)

    def add_endpoint_alias(self, endpoint: str, alias: str) -> None:
        target = endpoint.strip("/")
        if target.startswith("ext/"):
            target = target[4:]
        if alias in self.endpoint_aliases or alias in self.node_endpoints:
            raise NodeError(f"alias {alias} is already in use")
        self.endpoint_aliases[alias] = target
        self.routes_version += 1

    # ----------------------------------------------------------------------------- whole-node controls

    def snapshot(self) -> int:
        """Remember the current state of every chain; returns the snapshot's ID."""
        assert self.snapshots is not None
        return self.snapshots.take()

    def revert(self, snapshot_id: int) -> None:
        """Restore every chain to a snapshot; it and every later snapshot are consumed."""
        assert self.snapshots is not None
        if not self.snapshots.revert(snapshot_id):
            raise NodeError(f"unknown snapshot {snapshot_id}")

    def _reload_chains(self) -> None:
        """After the store was reverted: P first (it decides which L1 chains exist), then the rest."""
        platform = self.chains.get(ZERO_ID)
        if platform is not None:
            platform.reload()
        self.chain_manager.sync()  # stops the L1 chains whose CreateChainTx is gone
        for cid, chain in list(self.chains.items()):
            if cid != ZERO_ID:
                chain.reload()
        self.wake_clock()

    def reset(self, fork_url: str | None, fork_block: int | None) -> None:
        """anvil_reset / hardhat_reset: drop every chain's state and start them again on the same
        data dir, port and clock, from the genesis (no `fork_url`) or as a fork of `fork_url` at
        `fork_block` (default: the upstream's last accepted block). A fork that cannot be opened
        is refused before anything is dropped."""
        if fork_url:
            from .fork.errors import ForkError
            from .fork.session import open_fork
            try:
                open_fork(Store.memory(), fork_url, fork_block, timeout=self.config.fork_timeout,
                          retries=self.config.fork_retries).upstream.close()
            except ForkError as exc:
                raise NodeError(str(exc)) from None
        assert self.store is not None
        self._close_chains()
        self.warp_signer = self.aggregator = self.relayer = None
        if self.fork is not None:
            self.fork.upstream.close()
            self.fork = None
        self.store.close()
        shutil.rmtree(self.data_dir / "db", ignore_errors=True)
        self.config = self.config.with_(fork_url=fork_url or None, fork_block=fork_block if fork_url else None,
                                        network_id=self._base_network_id)
        self.genesis = self._base_genesis
        self._open_store(self.data_dir)
        self._open_fork()
        self._build_chains()
        while self._deferred:
            spec = self._deferred.pop(0)
            chain = load_deferred(spec)(self.chain_context(spec.chain_id))
            self.chain_endpoints(chain)
            self.chains[spec.chain_id] = chain
        platform = self._platform()
        self.warp_signer = WarpSigner(platform, self.keystore)
        self.aggregator = Aggregator(platform, self.warp_signer)
        for chain in list(self.chains.values()):
            self._sign_for(chain)
        self.chain_manager.attach()
        self.chain_manager.sync()
        self.wake_clock()

    def mine(self, blocks: int) -> dict[str, int]:
        """Build blocks now on every chain; returns the count per chain alias."""
        return {(c.default_aliases or (c.name,))[0]: c.mine(blocks) for c in self.chains.values()}

    # ----------------------------------------------------------------------------- lifecycle

    def _open_store(self, data_dir: Path | None = None) -> None:
        if data_dir is not None:
            self.data_dir = data_dir
        elif self.config.ephemeral:
            self._tmpdir = tempfile.mkdtemp(prefix="simnode-")
            self.data_dir = Path(self._tmpdir)
        else:
            self.data_dir = self.config.resolved_data_dir()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        try:
            self.store = Store.open(self.data_dir / "db")
        except Exception as exc:  # plyvel raises IOError subclasses on a held LOCK
            raise NodeError(f"cannot open the database in {self.data_dir}: {exc}") from exc
        self.snapshots = Snapshots(self.store)
        self.snapshots.on_revert.append(self._reload_chains)
        self.indexer = Indexer(self.store) if self.config.index else None
        self.webhooks.open()
        stored = self.store.get_obj(_GENESIS_TIME_KEY)
        if stored is None:
            # AvalancheGo re-bases the shipped local genesis to a recent start; files given
            # with --genesis and Fuji's keep their own time.
            rebase = self.config.genesis_file is None and self.genesis.network_id != 5
            self.genesis_time = (rebased_start_time(self.genesis.config.start_time, self.clock.now())
                                 if rebase else self.genesis.start_time)
            batch = self.store.batch()
            batch.put_obj(_GENESIS_TIME_KEY, self.genesis_time)
            batch.commit()
        else:
            self.genesis_time = int(stored)
        if self.genesis_time != self.genesis.start_time:
            self.genesis = build_genesis(self.genesis.config, self.genesis_time)

    def _open_fork(self) -> None:
        """--fork-url: the upstream's identity (network, asset and chain IDs) replaces the
        genesis's; the chains then read their state through `self.fork` (simnode/fork). A data
        dir that holds a fork goes on with it (a restart without the flag, `simnode reindex`)."""
        assert self.store is not None
        fork_url = self.config.fork_url
        if not fork_url:
            from .fork.cache import ForkCache
            fork_url = ForkCache(self.store).held_url()
            if fork_url is None:
                return
            log.info("the data dir holds a fork of %s: it goes on", fork_url)
            self.config = self.config.with_(fork_url=fork_url)
        from .fork.errors import ForkError
        from .fork.identity import describe_ids, forked_genesis
        from .fork.session import open_fork

        try:
            self.fork = open_fork(self.store, fork_url, self.config.fork_block,
                                  timeout=self.config.fork_timeout, retries=self.config.fork_retries)
        except ForkError as exc:
            raise NodeError(str(exc)) from None
        identity = self.fork.identity
        self.genesis = forked_genesis(self.genesis, identity)
        self.config = self.config.with_(network_id=identity.network_id)
        if self.clock.mode == "virtual" and self.config.start_time_ms is None:
            if self._clock_wakeup is None:  # not started yet: a virtual clock starts at the fork block's time
                self.clock = VirtualClock(identity.block_time_ms)
            elif identity.block_time_ms > self.clock.now_ms():
                self.clock.set_ms(identity.block_time_ms)
        log.info("fork of %s from %s: %s", identity.describe(), identity.url, describe_ids(identity))
        log.warning("the forked validators' BLS secret keys are unknown: each signs with a key derived from the "
                    "seed (%d), and the fork's P-Chain reports those keys", self.config.seed)

    def _build_chains(self) -> None:
        for item in build_primary_chains(self.chain_context):
            if isinstance(item, DeferredChain):
                self._deferred.append(item)
                self.register_chain(BootstrappingChain(item))
            else:
                self.register_chain(item)

    async def _build_deferred_chains(self) -> None:
        loop = asyncio.get_running_loop()
        # While the import thread runs, hand the GIL back to the serving loop often.
        with short_switch_interval():
            while self._deferred:
                spec = self._deferred.pop(0)
                factory = await loop.run_in_executor(None, load_deferred, spec)
                chain = factory(self.chain_context(spec.chain_id))
                self.chain_endpoints(chain)  # ready before the chain answers, not on its first request
                self.chains[spec.chain_id] = chain
                self._sign_for(chain)

    def open_offline(self) -> None:
        """Open the store and every chain without serving anything (simnode reindex); stop()
        closes them."""
        logs.configure(self.config.log_level)
        self._open_store()
        self._open_fork()
        self._build_chains()
        while self._deferred:
            spec = self._deferred.pop(0)
            self.chains[spec.chain_id] = load_deferred(spec)(self.chain_context(spec.chain_id))
        self.chain_manager.attach()
        self.chain_manager.sync()

    def chain_context(self, chain_id: bytes) -> ChainContext:
        assert self.store is not None
        return ChainContext(config=self.config, genesis=self.genesis, store=self.store, clock=self.clock,
                            chain_id=chain_id, chains=self.chains, genesis_time=self.genesis_time,
                            node_id=self.node_id, snapshots=self.snapshots, indexer=self.webhooks.feed,
                            warp_validators=self.warp_validators,
                            first_block_credits=((relayer_address(self.config.seed), RELAYER_FUNDS),),
                            fork=self.fork,
                            block_building=self.block_building, prepare_engine=patches.install)

    def _build_node_endpoints(self) -> None:
        self.node_endpoints["info"] = info_api.build_service(self)
        self.node_endpoints["admin"] = (
            admin_api.build_service(self) if self.config.api_admin_enabled
            else disabled_endpoint("admin API", "--api-admin-enabled")
        )
        self.node_endpoints["simnode"] = simnode_api.build_service(self)
        self.node_endpoints.update(health_endpoints(self))
        self.routes_version += 1
        if self.request_observer is not None:
            self.request_observer(None, self.node_endpoints)

    async def start(self) -> None:
        """Open everything and serve; returns once every chain is bootstrapped (the port
        answers before that: chains still loading reply 503, as AvalancheGo's do)."""
        logs.configure(self.config.log_level)
        if self._derived_signers:
            log.warning("the genesis lists BLS signers whose secret keys simnode does not have (%s); those "
                        "stakers sign with keys derived from the seed instead, and the P-Chain reports those",
                        ", ".join(node_id_to_str(n) for n in self._derived_signers))
        self._open_store()
        try:
            self._open_fork()
            self._build_chains()
            platform = self._platform()
            self.warp_signer = WarpSigner(platform, self.keystore)
            self.aggregator = Aggregator(platform, self.warp_signer)
            for chain in list(self.chains.values()):
                self._sign_for(chain)
            self._build_node_endpoints()
            app = build_app(self)
            self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
            await self._runner.setup()
            sock = bind_listener(self.config.http_host, self.config.http_port)
            self.port = sock.getsockname()[1]
            site = FastSockSite(self._runner, sock, self)
            await site.start()
            await self._build_deferred_chains()
            self.webhooks.start()
            self.chain_manager.attach()
            self.chain_manager.sync()  # the L1 chains recorded by earlier runs start again
        except BaseException:
            await self.stop()
            raise
        self._clock_wakeup = asyncio.Event()
        self.clock.on_time_change(lambda _now: self.wake_clock())
        if self.clock.mode == "wall":
            self._clock_task = asyncio.create_task(self._run_wall_clock())
        # py-evm for the EVM chains, warmed once the caller has the node (the ready line first)
        loop = asyncio.get_running_loop()
        loop.call_soon(warm_engines, loop, lambda: self.chains.values())

    async def _run_wall_clock(self) -> None:
        """Fire scheduled events at their wall-clock time."""
        assert self._clock_wakeup is not None
        while not self._stopping:
            try:
                self.clock.run_due()
            except Exception:  # a failed event must not stop the clock for every other chain
                log.exception("a scheduled event failed")
            due = self.clock.scheduler.next_due_ms()
            timeout = None if due is None else max(0.0, (due - self.clock.now_ms()) / 1000)
            self._clock_wakeup.clear()
            try:
                # asyncio.timeout, not wait_for: 3.11's wait_for can swallow a cancellation that
                # races with the event being set, and the loop would then never end.
                async with asyncio.timeout(timeout):
                    await self._clock_wakeup.wait()
            except TimeoutError:
                pass

    def wake_clock(self) -> None:
        """Tell the wall-clock loop that the schedule changed."""
        if self._clock_wakeup is not None:
            self._clock_wakeup.set()

    async def stop(self) -> None:
        await self.webhooks.stop()
        if self._clock_task is not None:
            self._stopping = True
            self.wake_clock()
            await self._clock_task
            self._clock_task = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        self._close_chains()
        self.profiler.stop_all()
        if self.fork is not None:
            self.fork.upstream.close()
        if self.store is not None:
            self.store.close()
            self.store = None
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    def _close_chains(self) -> None:
        for chain in list(self.chains.values()):
            chain.close()
        self.chains.clear()
        self._endpoints.clear()
        self.chain_manager.close()
        self._aliases.clear()
        self._chain_aliases.clear()

    # ----------------------------------------------------------------------------- in-process API

    @classmethod
    def start_in_thread(cls, config: NodeConfig | None = None) -> NodeThread:
        """Start a node on its own event loop in a background thread; see NodeThread."""
        handle = NodeThread(cls(config or NodeConfig(http_port=0, ephemeral=True)))
        handle.start()
        return handle


def build_chain_endpoints(chain: Chain) -> dict[str, Any]:
    """A chain's endpoints from its VM's service module (the node wires VMs to their APIs)."""
    if chain.vm_id == PLATFORM_VM_ID:
        return platform_service.build_endpoints(chain)  # type: ignore[arg-type]
    if chain.vm_id == AVM_VM_ID:
        return avm_service.build_endpoints(chain)  # type: ignore[arg-type]
    if chain.vm_id in (EVM_VM_ID, SUBNET_EVM_VM_ID):
        from .vms.evm.endpoints import build_endpoints  # py-evm: imported once an EVM chain runs
        return build_endpoints(chain)  # type: ignore[arg-type]
    return {}


class NodeThread:
    """A node running in a background thread. Use as a context manager or call stop()."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="simnode", daemon=True)

    def start(self, prepare: Callable[[], None] | None = None) -> None:
        """Start the loop's thread and the node on it (`prepare` runs on the loop first)."""
        self._thread.start()

        async def start() -> None:
            if prepare is not None:
                prepare()
            await self.node.start()
        try:
            asyncio.run_coroutine_threadsafe(start(), self.loop).result()
        except BaseException:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join()
            raise

    @property
    def url(self) -> str:
        return self.node.url

    @property
    def urls(self) -> dict[str, str]:
        return node_urls(self.node.url)

    def call(self, fn: Any, *args: Any) -> Any:
        """Run `fn(*args)` on the node's loop (its only thread) and return the result."""
        async def run() -> Any:
            return fn(*args)
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result()

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        asyncio.run_coroutine_threadsafe(self.node.stop(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()

    def __enter__(self) -> NodeThread:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
