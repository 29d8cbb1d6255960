"""ChainManager: runs the chains the P-Chain records beyond the primary network's.

AvalancheGo's chains.Manager starts a chain when a CreateChainTx is accepted (for a subnet the
node tracks). Here the node tracks every subnet: after each accepted P-Chain block, at startup
and after a node-wide revert, `sync()` makes the running chains match the P-Chain's records:
* a record whose VM simnode runs (subnet-EVM) and that is not running is started; a failure
  (e.g. a genesis that is not EVM JSON) is logged as AvalancheGo logs it ("error creating
  chain") and remembered: the chain gets no alias, platform.getBlockchainStatus says "Created",
  info.isBootstrapped does not know it, and /ext/health reports the failing check;
* a running chain whose record is gone (a revert to before its CreateChainTx) is stopped and
  unregistered;
* other VMs are recorded by the P-Chain and not run (status "Created", as on a node without
  that VM);
* on a fork, a chain the upstream P-Chain listed runs forked when the upstream serves its RPC;
  otherwise it exists on the fork's P-Chain only (status "Created") and the log says so.

Layers point down: the P-Chain only calls its block listeners; the VM classes are imported
lazily here, by name; the node is reached through ChainHost, which `Node` satisfies.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from . import patches
from .fork.errors import NotForked
from .formats.ids import SUBNET_EVM_VM_ID, ZERO_ID, id_to_str

if TYPE_CHECKING:
    from .vms.chain_context import Chain, ChainContext

log = logging.getLogger("simnode.chain_manager")

# VM ID -> (module, factory); factory(context, genesis_data=, name=, subnet_id=) builds the chain.
VM_FACTORIES: dict[bytes, tuple[str, str]] = {
    SUBNET_EVM_VM_ID: ("simnode.vms.evm.subnet", "SubnetEVMChain"),
}


@runtime_checkable
class ChainHost(Protocol):
    """What the manager uses of the node: its running chains and how it adds and drops one."""

    @property
    def chains(self) -> dict[bytes, Chain]: ...

    def chain_context(self, chain_id: bytes) -> ChainContext: ...

    def register_chain(self, chain: Chain) -> None: ...

    def unregister_chain(self, chain_id: bytes) -> None: ...


class ChainManager:
    def __init__(self, node: ChainHost) -> None:
        self.node = node
        self.running: dict[bytes, Any] = {}   # chain ID -> chain started here
        self.failed: dict[bytes, str] = {}    # chain ID -> why it did not start
        self.upstream_only: dict[bytes, str] = {}  # on a fork: chain ID -> why the fork does not run it
        self._listening: Any = None

    # ----------------------------------------------------------------------------- wiring

    def _platform(self) -> Any:
        return self.node.chains.get(ZERO_ID)

    def attach(self) -> None:
        """Listen to the P-Chain's accepted blocks (idempotent)."""
        p = self._platform()
        if p is None or self._listening is p:
            return
        p.listeners.append(self._on_platform_block)
        self._listening = p

    def _on_platform_block(self, _height: int, _block_id: bytes, tx_ids: list[bytes]) -> None:
        p = self._platform()
        if p is not None and any(t in p.state.chains for t in tx_ids):
            self.sync()

    # ----------------------------------------------------------------------------- sync

    def records(self) -> dict[bytes, Any]:
        """The P-Chain's chain records outside the primary network, by chain ID."""
        p = self._platform()
        if p is None:
            return {}
        return {cid: rec for cid, rec in p.state.chains.items() if rec.subnet_id != ZERO_ID}

    def sync(self) -> None:
        records = self.records()
        for cid in [c for c in self.running if c not in records]:
            self.stop(cid)
        for cid in [c for c in self.failed if c not in records]:
            del self.failed[cid]
        for cid in sorted(records):
            if cid in self.running or cid in self.failed or cid in self.upstream_only or cid in self.node.chains:
                continue
            rec = records[cid]
            if rec.vm_id in VM_FACTORIES:
                self.start(rec)

    def start(self, rec: Any) -> Any | None:
        module, factory = VM_FACTORIES[rec.vm_id]
        cid = rec.chain_id
        log.info("creating chain subnetID=%s chainID=%s vmID=%s", id_to_str(rec.subnet_id), id_to_str(cid),
                 id_to_str(rec.vm_id))
        try:
            patches.install()  # simnode's changes to py-evm, before its VM runs
            cls = getattr(importlib.import_module(module), factory)
            chain = cls(self.node.chain_context(cid), genesis_data=rec.genesis_data, name=rec.name,
                        subnet_id=rec.subnet_id)
        except NotForked as exc:
            self.upstream_only[cid] = str(exc)
            log.warning("chain %s (%s) exists on the fork's P-Chain only: %s", id_to_str(cid), rec.name, exc)
            return None
        except Exception as exc:  # noqa: BLE001 - any failure leaves the chain not running
            reason = str(exc) or type(exc).__name__
            self.failed[cid] = reason
            log.error("error creating chain subnetID=%s chainID=%s chainAlias=%s vmID=%s error=%s",
                      id_to_str(rec.subnet_id), id_to_str(cid), id_to_str(cid), id_to_str(rec.vm_id), reason)
            return None
        self.running[cid] = chain
        self.node.register_chain(chain)
        return chain

    def stop(self, chain_id: bytes) -> None:
        chain = self.running.pop(chain_id, None)
        if chain is None:
            return
        log.info("stopping chain chainID=%s (its CreateChainTx was reverted)", id_to_str(chain_id))
        try:
            chain.close()
        finally:
            self.node.unregister_chain(chain_id)

    def close(self) -> None:
        self.running.clear()
        self.failed.clear()
        self.upstream_only.clear()
        self._listening = None

    # ----------------------------------------------------------------------------- reports

    def health_checks(self) -> dict[str, str]:
        """Failing checks by chain alias (the ID), as AvalancheGo registers them."""
        out = {}
        records = self.records()
        for cid, reason in sorted(self.failed.items()):
            rec = records.get(cid)
            subnet = id_to_str(rec.subnet_id) if rec is not None else ""
            out[id_to_str(cid)] = f"failed to create chain on subnet {subnet}: {reason}"
        return out
