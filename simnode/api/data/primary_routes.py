"""The primary network's routes (P-, X- and C-Chain data, subnets, staking, supply) and their handlers."""

from __future__ import annotations

from typing import Any

from . import primary_chains, primary_staking, primary_txs, primary_utxos

_N = "/v1/networks/{network}"
_B = _N + "/blockchains/{blockchainId}"

ROUTES: dict[tuple[str, str], Any] = {
    ("GET", _N): primary_staking.network_details,
    ("GET", _N + "/blockchains"): primary_chains.list_blockchains,
    ("GET", _B): primary_chains.get_blockchain,
    ("GET", _N + "/subnets"): primary_chains.list_subnets,
    ("GET", _N + "/subnets/{subnetId}"): primary_chains.get_subnet,
    ("GET", _N + "/validators"): primary_staking.list_validators,
    ("GET", _N + "/validators/{nodeId}"): primary_staking.get_validator,
    ("GET", _N + "/delegators"): primary_staking.list_delegators,
    ("GET", _N + "/l1Validators"): primary_staking.list_l1_validators,
    ("GET", _N + "/rewards"): primary_staking.historical_rewards,
    ("GET", _N + "/rewards:listPending"): primary_staking.pending_rewards,
    ("GET", _N + "/addresses:listChainIds"): primary_utxos.list_chain_ids,
    ("GET", _B + "/utxos"): primary_utxos.get_utxos,
    ("POST", _B + "/utxos"): primary_utxos.post_utxos,
    ("GET", _B + "/balances"): primary_utxos.balances,
    ("GET", _B + "/lastActivityTimestampByAddresses"): primary_utxos.last_activity,
    ("POST", _B + "/lastActivityTimestampByAddresses"): primary_utxos.post_last_activity,
    ("GET", _B + "/blocks"): primary_txs.list_blocks,
    ("GET", _B + "/blocks/{blockId}"): primary_txs.get_block,
    ("GET", _B + "/nodes/{nodeId}/blocks"): primary_txs.node_blocks,
    ("GET", _B + "/transactions"): primary_txs.list_txs,
    ("GET", _B + "/transactions/{txHash}"): primary_txs.get_tx,
    ("GET", _B + "/transactions:listStaking"): primary_txs.list_staking,
    ("GET", _B + "/assets/{assetId}"): primary_txs.get_asset,
    ("GET", _B + "/assets/{assetId}/transactions"): primary_txs.asset_txs,
    ("GET", _B + "/vertices"): primary_txs.list_vertices,
    ("GET", _B + "/vertices/{vertexHash}"): primary_txs.get_vertex,
    ("GET", _B + "/vertices:listByHeight"): primary_txs.list_vertices,
    ("GET", "/v1/avax/supply"): primary_staking.supply,
}
