"""Recording a live session into a scenario file (`simnode run --record-scenario FILE`).

The node hands the recorder each endpoint table as it is built (`Node.observe_requests`); the
recorder wraps the handlers of the state-changing methods (signed txs on every chain, node-held
account sends, dev methods, `/ext/simnode` and admin aliases) and follows every chain's accepted
blocks. The file is a scenario (docs/scenarios.md) whose steps are, in the order they happened:

* `request`: the endpoint, method and params as the client sent them (JSON text), the node's time
  when it ran and, for txs and snapshots, what it answered;
* `block`: a block as it was built: chain, height, ID, its txs and the node's time then.

Reads are not recorded, nor failed requests (they changed nothing). Keys never are: a signed tx
is its bytes, a node-held account is named by its address.

A wall clock is quantized while recording (`WallClock.quantize`): a request, the block it makes
and what that block's listeners do all read the one time the file names, so a replay on a virtual
clock sets it and builds the same block. Steps are buffered and appended to the file at least
every `FLUSH_BLOCKS` accepted blocks or `FLUSH_SECONDS`, whichever comes first, and on close (the
CLI closes on SIGINT/SIGTERM): each flush is one write of whole step tables, so a process killed
at any moment leaves a file that loads and replays up to its last flush.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..crypto.hashing import keccak256
from ..formats.ids import AVM_VM_ID, PLATFORM_VM_ID, id_to_str
from ..formats.jsonnum import format_rfc3339_nano
from ..rpc.jsonrpc import EthService, GorillaService
from .tomlout import toml_key_values

log = logging.getLogger("simnode.scenario.recorder")

FLUSH_BLOCKS = 10
FLUSH_SECONDS = 1.0

# The EVM chains' state-changing methods (vms/evm/eth_service.py, dev.py); every other method reads.
ETH_WRITES = frozenset({
    "eth_sendRawTransaction", "eth_sendTransaction",
    "evm_mine", "anvil_mine", "hardhat_mine",
    "evm_setAutomine", "anvil_setAutomine", "evm_setIntervalMining", "anvil_setIntervalMining",
    "evm_increaseTime", "anvil_increaseTime", "evm_setNextBlockTimestamp", "anvil_setNextBlockTimestamp",
    "evm_setTime", "anvil_setTime",
    "evm_snapshot", "anvil_snapshot", "evm_revert", "anvil_revert",
    "anvil_setBalance", "hardhat_setBalance", "tenderly_setBalance",
    "anvil_addBalance", "hardhat_addBalance", "tenderly_addBalance",
    "anvil_setCode", "hardhat_setCode", "anvil_setNonce", "hardhat_setNonce", "evm_setAccountNonce",
    "anvil_setStorageAt", "hardhat_setStorageAt",
    "anvil_impersonateAccount", "hardhat_impersonateAccount",
    "anvil_stopImpersonatingAccount", "hardhat_stopImpersonatingAccount",
    "anvil_autoImpersonateAccount", "hardhat_autoImpersonateAccount",
    "anvil_dropTransaction", "hardhat_dropTransaction", "anvil_dropAllTransactions", "hardhat_dropAllTransactions",
    "anvil_loadState", "hardhat_loadState", "anvil_reset", "hardhat_reset",
})
# gorilla endpoints (AvalancheGo's APIs, /ext/simnode, /ext/admin)
GORILLA_WRITES = frozenset({
    "avm.issueTx", "wallet.issueTx", "platform.issueTx", "avax.issueTx", "native.issueTx",
    "simnode.advanceTime", "simnode.setTime", "simnode.snapshot", "simnode.revert", "simnode.mine",
    "simnode.setRelayer", "simnode.fundAddress", "admin.alias", "admin.aliasChain",
})
# what these answer is written down and checked by a replay: a tx ID or a snapshot ID
CHECKED_RESULTS = frozenset({
    "eth_sendRawTransaction", "eth_sendTransaction", "avm.issueTx", "wallet.issueTx", "platform.issueTx",
    "avax.issueTx", "native.issueTx", "evm_snapshot", "anvil_snapshot", "simnode.snapshot",
})


def format_ms(ms: int) -> str:
    """RFC 3339 in UTC with the milliseconds when there are any (schema.v_time reads it back exactly)."""
    return format_rfc3339_nano(ms * 1_000_000)


def chain_ref(chain: Any) -> str:
    """How a recording names a chain: X, P or C for the primary chains, else the blockchain ID."""
    aliases = getattr(chain, "default_aliases", ())
    if aliases and aliases[0] in ("X", "P", "C"):
        return aliases[0]
    return id_to_str(chain.chain_id)


@dataclass(slots=True)
class _Entry:
    table: dict[str, Any]
    pending: bool = False
    block: bool = False


@dataclass(slots=True)
class _Followed:
    chain: Any
    undo: Callable[[], None] = field(default=lambda: None)


class Recorder:
    """Records one node's session into `path`. Call `start()` on the node's loop once the node is
    up (its data dir fresh), `close()` when it stops."""

    def __init__(self, node: Any, path: Path | str, *, flush_blocks: int = FLUSH_BLOCKS,
                 flush_seconds: float = FLUSH_SECONDS, name: str = "recorded session") -> None:
        self.node = node
        self.path = Path(path)
        self.flush_blocks = flush_blocks
        self.flush_seconds = flush_seconds
        self.name = name
        self.start_ms = 0
        self.steps_written = 0
        self._entries: list[_Entry] = []
        self._unflushed_blocks = 0
        self._timer: asyncio.TimerHandle | None = None
        self._file: Any = None
        self._followed: dict[bytes, _Followed] = {}
        self._wrapped: weakref.WeakSet[Any] = weakref.WeakSet()
        self._loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------ lifecycle

    def network_table(self) -> dict[str, Any]:
        c = self.node.config
        table: dict[str, Any] = {
            "recorded_by": "node", "seed": c.seed, "network_id": c.network_id, "start_time": format_ms(self.start_ms),
            "clock": self.node.clock.mode, "block_time": float(c.block_time),
        }
        if c.genesis_file is not None:
            table["genesis"] = str(Path(c.genesis_file).resolve())
        if c.chain_config_dir is not None:
            table["chain_config_dir"] = str(Path(c.chain_config_dir).resolve())
        if not c.relayer:
            table["relayer"] = False
        if c.api_admin_enabled:
            table["admin_api"] = True
        return table

    def start(self, start_ms: int | None = None) -> None:
        """Begin recording (on the node's loop). `start_ms`: the node's time when it opened its
        data dir (its genesis was placed then); default: now."""
        self._loop = asyncio.get_running_loop()
        clock = self.node.clock
        self.start_ms = clock.now_ms() if start_ms is None else start_ms
        self._file = self.path.open("w", encoding="utf-8")
        head = (f"# Recorded by simnode from a live session; replay it with `simnode replay {self.path.name}`.\n"
                f"name = \"{self.name}\"\n\n[network]\n" + toml_key_values(self.network_table()) + "\n")
        self._file.write(head)
        self._file.flush()
        if clock.mode == "wall":
            clock.quantize(self._loop)
        self.node.observe_requests(self._observe)
        self._follow_chains()

    def close(self) -> None:
        """Write what is buffered and close the file (requests still running are left out)."""
        if self._file is None:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.flush()
        self._file.close()
        self._file = None
        for followed in self._followed.values():
            followed.undo()
        self._followed.clear()

    # ------------------------------------------------------------------ requests

    def _observe(self, chain: Any, endpoints: dict[str, Any]) -> None:
        base = "/ext" if chain is None else f"/ext/bc/{chain_ref(chain)}"
        for sub, service in endpoints.items():
            if service in self._wrapped:
                continue
            path = f"{base}/{sub}" if chain is None else base + sub
            if isinstance(service, EthService):
                names = ETH_WRITES
            elif isinstance(service, GorillaService):
                names = GORILLA_WRITES
            else:
                continue
            self._wrapped.add(service)
            for method in names:
                service.wrap(method, self._wrapper(path, method, isinstance(service, GorillaService)))

    def _wrapper(self, path: str, method: str, gorilla: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
            def recorded(*args: Any) -> Any:
                entry = self._begin(path, method, args[0] if gorilla else list(args))
                try:
                    result = fn(*args)
                except BaseException:
                    self._drop(entry)
                    raise
                if inspect.isawaitable(result):
                    return self._settle_later(entry, method, result)
                self._settle(entry, method, result)
                return result
            return recorded
        return wrap

    def _begin(self, path: str, method: str, params: Any) -> _Entry:
        self._follow_chains()
        table: dict[str, Any] = {"kind": "request", "at": format_ms(self.node.clock.now_ms()), "endpoint": path,
                                 "method": method}
        if params not in (None, [], {}):
            table["params"] = orjson.dumps(params).decode()
        entry = _Entry(table, pending=True)
        self._entries.append(entry)
        return entry

    def _drop(self, entry: _Entry) -> None:
        self._entries.remove(entry)

    def _settle(self, entry: _Entry, method: str, result: Any) -> None:
        if method in CHECKED_RESULTS:
            entry.table["result"] = orjson.dumps(result).decode()
        entry.pending = False
        self._added()

    async def _settle_later(self, entry: _Entry, method: str, pending: Any) -> Any:
        try:
            result = await pending
        except BaseException:
            self._drop(entry)
            raise
        self._settle(entry, method, result)
        return result

    # ------------------------------------------------------------------ blocks

    def _follow_chains(self) -> None:
        """Follow every running chain (a chain started later, an L1's, is seen at the next request
        or block, before it can have built anything)."""
        chains = self.node.chains
        for cid in [c for c in self._followed if c not in chains]:
            self._followed.pop(cid).undo()
        for cid, chain in list(chains.items()):
            known = self._followed.get(cid)
            if known is not None and known.chain is chain:
                continue
            if known is not None:
                known.undo()
                del self._followed[cid]
            if not chain.is_bootstrapped():
                continue
            self._followed[cid] = _Followed(chain, self._listen(chain))

    def _listen(self, chain: Any) -> Callable[[], None]:
        ref = chain_ref(chain)
        if chain.vm_id == PLATFORM_VM_ID:
            def on_p(height: int, block_id: bytes, tx_ids: list[bytes]) -> None:
                self._block(ref, height, id_to_str(block_id), [id_to_str(t) for t in tx_ids])
            return _subscribe(chain.listeners, on_p)
        if chain.vm_id == AVM_VM_ID:
            def on_x(blk: Any) -> None:
                self._block(ref, blk.height, id_to_str(blk.id), [id_to_str(tx.id) for tx in blk.txs])
            return _subscribe(chain.on_accept, on_x)

        def on_evm(kind: str, payload: Any) -> None:
            if kind != "block":
                return
            txs = ["0x" + keccak256(raw).hex() for raw in payload.raws]
            if payload.ext:
                from ..vms.evm.atomic_txs import decode_block_txs
                txs += [id_to_str(tx.id) for tx in decode_block_txs(payload.ext)]
            self._block(ref, payload.number, "0x" + payload.hash.hex(), txs)
        return _subscribe(chain.listeners, on_evm)

    def _block(self, ref: str, height: int, block_id: str, txs: list[str]) -> None:
        self._follow_chains()
        table = {"kind": "block", "chain": ref, "height": height, "id": block_id,
                 "at": format_ms(self.node.clock.now_ms()), "txs": txs}
        self._entries.append(_Entry(table, block=True))
        self._unflushed_blocks += 1
        self._added()

    # ------------------------------------------------------------------ flushing

    def _added(self) -> None:
        if self._unflushed_blocks >= self.flush_blocks:
            self.flush()
        if self._entries and self._timer is None and self._loop is not None:
            self._timer = self._loop.call_later(self.flush_seconds, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self.flush()
        if self._entries and self._loop is not None:
            self._timer = self._loop.call_later(self.flush_seconds, self._on_timer)

    def flush(self) -> None:
        """Append every finished step up to the first request still running, in one write."""
        if self._file is None:
            return
        done = 0
        for entry in self._entries:
            if entry.pending:
                break
            done += 1
        if not done:
            return
        out = self._entries[:done]
        del self._entries[:done]
        self._unflushed_blocks = sum(1 for e in self._entries if e.block)
        self._file.write("".join("\n[[steps]]\n" + toml_key_values(e.table) for e in out))
        self._file.flush()
        self.steps_written += len(out)


def _subscribe(listeners: list[Any], fn: Any) -> Callable[[], None]:
    listeners.append(fn)

    def undo() -> None:
        if fn in listeners:
            listeners.remove(fn)
    return undo
