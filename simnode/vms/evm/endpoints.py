"""An EVM chain's HTTP endpoints, assembled: the Ethereum JSON-RPC (EthAPI, service.py, with its
eth_, txpool_, net_ and web3_ methods and coreth's extras) with the dev methods, tracers, websocket
and admin API; on the C-Chain the avax API (atomic txs), on an L1 chain subnet-EVM's extra methods
instead. The node asks for them once a chain is running."""

from __future__ import annotations

from typing import Any

from ...rpc.jsonrpc import EthService, GorillaService
from .admin import build_admin
from .avax_service import build_avax_service
from .evm_chain import EVMChain
from .dev import register_dev
from .eth_extras import register_coreth_extras, register_subnet_extras
from .eth_fees import register_eth_fees
from .eth_filters import register_eth_filters
from .eth_service import register_eth
from .service import EthAPI
from .subnet import SubnetEVMChain
from .tracing.debug_trace import register_trace
from .txpool_net_web3 import register_txpool_net_web3
from .ws import make_ws_handler


def build_endpoints(chain: EVMChain) -> dict[str, Any]:
    svc = EthService()
    svc.settling = lambda: chain.mine_requested  # a tx acknowledged with automine is in a block first
    api = EthAPI(chain)
    register_txpool_net_web3(svc, api)
    register_eth(svc, api)
    register_eth_fees(svc, api)
    register_coreth_extras(svc, api)
    register_eth_filters(svc, api)
    register_dev(svc, api)
    register_trace(svc, api)
    if chain.fork is not None:  # a chain forked from a live network: its history is the upstream's
        from .fork_rpc import register_fork
        register_fork(svc, api)
    out: dict[str, Any] = {"/rpc": svc, "/ws": make_ws_handler(svc, api), "/admin": build_admin(chain)}
    if isinstance(chain, SubnetEVMChain):  # subnet-EVM: no atomic txs, its own fee config, chain config, rules
        register_subnet_extras(svc, api, chain)
    elif chain.atomic is not None:  # the C-Chain: avax.* (and the seed's /native path, native.* alias)
        out["/avax"] = out["/native"] = build_avax_service(chain)
    else:
        out["/avax"] = GorillaService()
    return out
