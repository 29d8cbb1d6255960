"""`GET /v1/chains` and `GET /v1/chains/{chainId}`: the node's EVM chains as ChainInfo.

The C-Chain and every running L1 EVM chain, with this node's RPC and websocket URLs. The C-Chain's
token is AVAX. An L1's genesis carries no token metadata, so its `networkToken` is named after
the chain (the CreateChainTx name; the symbol is that name's letters and digits upper-cased) with
the EVM's 18 decimals. `enabledFeatures` lists what this node does for the chain: NFT indexing,
webhooks (address_activity, simnode/webhooks), and `teleporter` (ICM messages) once the
TeleporterMessenger has code on the chain. On a fork, a chain's description says from which
upstream block on this node indexes it (earlier history is the upstream's).
"""

from __future__ import annotations

from typing import Any

from ...fork.errors import ForkError
from ...formats.ids import ZERO_ID, id_to_str
from ...icm.messages import MESSENGER_ADDRESS
from .context import RequestContext
from .resolve import evm_chain, evm_chain_id_of, evm_chains

MAINNET_ID = 1
AVAX_TOKEN = {"name": "Avalanche", "symbol": "AVAX", "decimals": 18}
FEATURES = ["nftIndexing", "webhooks"]


def network_token(chain: Any) -> dict[str, Any]:
    if chain.subnet_id == ZERO_ID:
        return dict(AVAX_TOKEN)
    symbol = "".join(ch for ch in chain.name if ch.isascii() and ch.isalnum()).upper()
    return {"name": chain.name, "symbol": symbol or "NATIVE", "decimals": 18}


def _network_title(ctx: RequestContext) -> str:
    name = ctx.node.genesis.network_name
    return "" if ctx.node.config.network_id == MAINNET_ID else f" {name[:1].upper()}{name[1:]}"


def chain_info(ctx: RequestContext, chain: Any) -> dict[str, Any]:
    node = ctx.node
    cid = id_to_str(chain.chain_id)
    primary = chain.subnet_id == ZERO_ID
    ref = "C" if primary else cid
    network = f"{node.genesis.network_name} network ({node.config.network_id})"
    if primary:
        name = f"Avalanche{_network_title(ctx)} (C-Chain)"
        description = f"The C-Chain of the {network}, served by simnode"
    else:
        name = chain.name
        description = (f"{chain.name}: an L1 EVM chain (subnet-EVM) of subnet {id_to_str(chain.subnet_id)} "
                       f"on the {network}, served by simnode")
    fork = getattr(chain, "fork", None)
    if fork is not None:
        n = fork.block_number
        description += (f"; a fork of {fork.upstream_url} at block {n}: blocks 0 to {n} and their history are "
                        f"the upstream's (its own Data API serves them), this node indexes blocks {n + 1} on")
    ws_base = "ws" + ctx.base_url[len("http"):] if ctx.base_url.startswith("http") else ctx.base_url
    return {
        "chainId": str(evm_chain_id_of(node, chain)),
        "status": "OK" if chain.is_bootstrapped() else "UNAVAILABLE",
        "chainName": name,
        "description": description,
        "platformChainId": cid,
        "subnetId": id_to_str(chain.subnet_id),
        "vmId": id_to_str(chain.vm_id),
        "vmName": "EVM",
        "rpcUrl": f"{ctx.base_url}/ext/bc/{ref}/rpc",
        "wsUrl": f"{ws_base}/ext/bc/{ref}/ws",
        "isTestnet": node.config.network_id != MAINNET_ID,
        "networkToken": network_token(chain),
        "enabledFeatures": _features(chain),
    }


def _features(chain: Any) -> list[str]:
    try:
        if chain.is_bootstrapped() and chain.view().get_code(MESSENGER_ADDRESS):
            return [*FEATURES, "teleporter"]
    except ForkError:  # a fork whose upstream cannot say: the messenger is not known to be there
        pass
    return list(FEATURES)


def list_chains(ctx: RequestContext) -> dict[str, Any]:
    # `network` is validated by the document and names the running network whatever its value
    feature = ctx.params.get("feature")
    chains = [chain_info(ctx, c) for c in evm_chains(ctx.node)]
    if feature is not None:
        chains = [c for c in chains if feature in c["enabledFeatures"]]
    return {"chains": chains}


def get_chain(ctx: RequestContext) -> dict[str, Any]:
    return chain_info(ctx, evm_chain(ctx.node, ctx.params["chainId"]))
