"""Test helpers: a node handle with client conveniences, funded accounts. The pytest plugin
(`simnode.testing.plugin`, registered as the `simnode` pytest11 entry point) builds on these."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

DEFAULT_ACCOUNT_NAMES = ("alice", "bob", "carol", "dave")
DEFAULT_FUNDING = {"C": "1000 AVAX", "X": "1000 AVAX", "P": "5000 AVAX"}


class Accounts(Mapping[str, Any]):
    """Funded accounts by name; also by attribute: ``accounts.alice.c_address``."""

    def __init__(self, accounts: dict[str, Any]) -> None:
        self._accounts = dict(accounts)

    def __getitem__(self, name: str) -> Any:
        return self._accounts[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._accounts)

    def __len__(self) -> int:
        return len(self._accounts)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._accounts[name]
        except KeyError:
            raise AttributeError(f"no account named {name!r} (have: {', '.join(self._accounts)})") from None


class Simnode:
    """A running node (in a background thread) with the calls a test needs."""

    def __init__(self, handle: Any, base_dir: Path | None = None) -> None:
        self.handle = handle
        self.base_dir = base_dir or Path.cwd()
        self.accounts: Accounts | None = None
        self._transport: Any = None

    @classmethod
    def start(cls, *, seed: int = 0, clock: str = "virtual", block_time: float = 0.0,
              base_dir: Path | None = None, **config: Any) -> Simnode:
        from .. import patches

        patches.install()  # before the node's modules load (see patches.py)
        from ..config import NodeConfig
        from ..node import Node

        cfg = NodeConfig(http_port=0, ephemeral=True, seed=seed, clock_mode=clock, block_time=block_time,
                         log_level=config.pop("log_level", "WARN"), **config)
        return cls(Node.start_in_thread(cfg), base_dir)

    # ------------------------------------------------------------------ basics

    @property
    def node(self) -> Any:
        return self.handle.node

    @property
    def url(self) -> str:
        return self.handle.url

    @property
    def urls(self) -> dict[str, str]:
        return self.handle.urls

    @property
    def transport(self) -> Any:
        if self._transport is None:
            from ..scenario.transport import InProcessTransport
            self._transport = InProcessTransport(self.handle.node, self.handle.loop)
        return self._transport

    def rpc(self, endpoint: str, method: str, params: Any = None) -> Any:
        """A JSON-RPC call to "C", "X", "P", "info", "simnode" or a path; returns `result`."""
        return self.transport.call(endpoint, method, params)

    # ------------------------------------------------------------------ time travel and snapshots

    def now(self) -> int:
        """The node's time in unix seconds."""
        return int(self.rpc("simnode", "simnode.getTime", {})["timestamp"])

    def advance_time(self, by: int | str) -> int:
        from ..formats.amounts import parse_duration
        seconds = parse_duration(by) if isinstance(by, str) else int(by)
        return int(self.rpc("simnode", "simnode.advanceTime", {"seconds": str(seconds)})["timestamp"])

    def set_time(self, unix_seconds: int) -> int:
        return int(self.rpc("simnode", "simnode.setTime", {"timestamp": str(unix_seconds)})["timestamp"])

    def mine(self, blocks: int = 1) -> dict[str, str]:
        return self.rpc("simnode", "simnode.mine", {"blocks": str(blocks)})["blocks"]

    def snapshot(self) -> str:
        return self.rpc("simnode", "simnode.snapshot", {})["id"]

    def revert(self, snapshot_id: str) -> None:
        self.rpc("simnode", "simnode.revert", {"id": snapshot_id})

    # ------------------------------------------------------------------ accounts and scenarios

    def fund_accounts(self, names: tuple[str, ...] = DEFAULT_ACCOUNT_NAMES, seed: int = 0,
                      funding: dict[str, str] | None = None) -> Accounts:
        """Derive `names` from the seed and fund them from ewoq with real txs on every chain
        this build has."""
        from ..scenario.replay import run_on
        from ..scenario.runner import Runner

        funding = dict(funding or DEFAULT_FUNDING)
        probe = Runner(_empty_scenario(), self.transport, network_id=self.node.config.network_id)
        funding = {c: a for c, a in funding.items() if probe.available(c)}
        doc = {"network": {"seed": seed}, "accounts": {n: {"fund": funding} for n in names}}
        result = run_on(self.handle, doc, progress=False, base_dir=self.base_dir)
        self.accounts = Accounts({n: result.accounts[n] for n in (*names, "ewoq")})
        return self.accounts

    def run_scenario(self, source: Any, *, vars: dict[str, Any] | None = None, setup: bool = True,
                     transport: str = "inprocess", with_trace: bool = False) -> Any:
        """Run a scenario file, a parsed document or a list of step tables against this node.
        Steps can use the funded accounts by name. Returns a ReplayResult (saved values in .saved)."""
        from ..scenario.replay import run_on

        if isinstance(source, (str, Path)) and not Path(source).is_absolute() and not Path(source).exists():
            candidate = self.base_dir / source
            if candidate.exists():
                source = candidate
        return run_on(self.handle, source, vars=vars, setup=setup, transport=transport, base_dir=self.base_dir,
                      extra_accounts=dict(self.accounts or {}), with_trace=with_trace)

    def stop(self) -> None:
        if self._transport is not None:
            self._transport.close()
        self.handle.stop()

    def __enter__(self) -> Simnode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _empty_scenario() -> Any:
    from ..scenario.model import Scenario
    return Scenario(source="<probe>")
