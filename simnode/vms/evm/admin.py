"""`/ext/bc/C/admin` (coreth's admin API; the node serves it only with --api-admin-enabled).

Methods: admin.startCPUProfiler, stopCPUProfiler, memoryProfile, lockProfile, setLogLevel
{level}, getVMConfig; both `admin.x` and `admin_x` spellings are accepted. Profiles go to
`<data dir>/profiles/cchain-*` (or a temp dir for ephemeral nodes), never to a request path.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import logs
from ...profiling import Profiler
from ...rpc.jsonrpc import GorillaService, Handler, RPCError

if TYPE_CHECKING:
    from .evm_chain import EVMChain


class CChainAdminService(GorillaService):
    """Gorilla service that also resolves geth-style `admin_method` names."""

    def _lookup(self, method: str) -> Handler:
        if "." not in method and "_" in method:
            service, name = method.split("_", 1)
            method = f"{service}.{name}"
        return super()._lookup(method)


def _data_dir(chain: EVMChain) -> Path:
    cfg = chain.config
    if getattr(cfg, "ephemeral", False) or getattr(cfg, "data_dir", None) is None and cfg.ephemeral:
        return Path(tempfile.gettempdir()) / f"simnode-cchain-{chain.chain_id.hex()[:8]}"
    try:
        return Path(cfg.resolved_data_dir())
    except Exception:  # noqa: BLE001
        return Path(tempfile.gettempdir()) / "simnode-cchain"


def build_admin(chain: EVMChain) -> GorillaService:
    prof = Profiler(lambda: _data_dir(chain) / "profiles")
    ok = {"success": True}

    def start_cpu(_: dict[str, Any]) -> dict:
        prof.start_cpu()
        return ok

    def stop_cpu(_: dict[str, Any]) -> dict:
        prof.stop_cpu()
        return ok

    def memory(_: dict[str, Any]) -> dict:
        prof.memory()
        return ok

    def lock(_: dict[str, Any]) -> dict:
        prof.locks()
        return ok

    def set_log_level(params: dict[str, Any]) -> dict:
        level = params.get("level")
        if not isinstance(level, str) or not level:
            raise RPCError("failed to parse log level: empty level")
        try:
            lvl = logs.parse_level(level)
        except ValueError as exc:
            raise RPCError(f"failed to parse log level: {exc}") from None
        import logging
        logging.getLogger("simnode.evm").setLevel(lvl)
        return ok

    def get_vm_config(_: dict[str, Any]) -> dict:
        return {"config": {
            "admin-api-enabled": True, "eth-apis": ["eth", "eth-filter", "net", "web3", "internal-eth",
                                                    "internal-blockchain", "internal-transaction", "debug-tracer",
                                                    "txpool"],
            "rpc-gas-cap": 50_000_000, "rpc-tx-fee-cap": 100, "api-max-blocks-per-request": 0,
            "allow-unprotected-txs": False, "local-txs-enabled": False, "tx-pool-price-limit": 1,
            "tx-pool-price-bump": 10, "batch-request-limit": 1000, "http-body-limit": chain.config.http_body_limit,
            "log-level": "info", "simnode-block-time": chain.interval_ms / 1000, "simnode-automine": chain.automine,
        }}

    return CChainAdminService({"admin": {
        "startCPUProfiler": start_cpu, "stopCPUProfiler": stop_cpu, "memoryProfile": memory,
        "lockProfile": lock, "setLogLevel": set_log_level, "getVMConfig": get_vm_config,
    }})
