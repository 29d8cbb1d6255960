"""The read calls the differential check sends to both nodes: every read method of info, health,
avm, platform, avax and eth that can take what the network holds, grouped by what they read."""

from __future__ import annotations

from typing import Any

from .differ import Call

INFO, HEALTH, X, P, C, AVAX = "/ext/info", "/ext/health", "/ext/bc/X", "/ext/bc/P", "/ext/bc/C/rpc", "/ext/bc/C/avax"
PRIMARY = "11111111111111111111111111111111LpoYY"
EWOQ_X = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
EWOQ_P = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
EWOQ_C_BECH = "C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
EWOQ_EVM = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"


def req(method: str, params: Any = None, rid: Any = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        body["params"] = params
    return body


def call(path: str, method: str, params: Any = None, label: str = "") -> Call:
    return Call(path, req(method, params), label=label or method)


def node_reads() -> list[Call]:
    """info and health: what a node says about itself and the network."""
    calls = [call(INFO, f"info.{m}", {}) for m in (
        "getNodeVersion", "getNodeID", "getNodeIP", "getNetworkID", "getNetworkName", "peers", "uptime",
        "acps", "upgrades", "getVMs", "getTxFee")]
    calls += [call(INFO, "info.getBlockchainID", {"alias": a}) for a in ("X", "P", "C", "avm", "evm", "platform", "Q")]
    calls += [call(INFO, "info.isBootstrapped", {"chain": c}) for c in ("X", "P", "C", "Q", "")]
    calls += [call(INFO, "info.peers", {"nodeIDs": ["NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"]})]
    calls += [call(HEALTH, f"health.{m}", {}) for m in ("health", "readiness", "liveness")]
    calls += [call(HEALTH, "health.health", {"tags": ["11111111111111111111111111111111LpoYY"]})]
    calls += [Call(HEALTH + suffix, None, label=f"GET /ext/health{suffix}")
              for suffix in ("", "/readiness", "/liveness")]
    return calls


def platform_reads(subnet_ids: tuple[str, ...] = (), chain_ids: tuple[str, ...] = ()) -> list[Call]:
    """platform.* reads of the chain as a whole, its subnets and chains."""
    calls = [call(P, f"platform.{m}", {}) for m in (
        "getHeight", "getProposedHeight", "getSubnets", "getStakingAssetID", "getCurrentValidators",
        "getCurrentSupply", "getBlockchains", "getMinStake", "getTotalStake", "getTimestamp",
        "getFeeConfig", "getFeeState", "getValidatorFeeConfig", "getValidatorFeeState")]
    calls += [call(P, "platform.sampleValidators", {"size": n}) for n in (1, "5", 6)]
    calls += [call(P, "platform.getBlockchainStatus", {"blockchainID": b})
              for b in ("X", "P", "C", "Q", "", *chain_ids)]
    calls += [call(P, "platform.validatedBy", {"blockchainID": b}) for b in ("X", *chain_ids)]
    calls += [call(P, "platform.validates", {"subnetID": s}) for s in (PRIMARY, *subnet_ids)]
    calls += [call(P, "platform.getSubnet", {"subnetID": s}) for s in (PRIMARY, *subnet_ids)]
    calls += [call(P, "platform.getValidatorsAt", {"height": h}) for h in ("0", "proposed")]
    calls += [call(P, "platform.getAllValidatorsAt", {"height": "proposed"})]
    calls += [call(P, "platform.getCurrentValidators", {"nodeIDs": ["NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"]})]
    for s in subnet_ids:
        calls += [call(P, f"platform.{m}", {"subnetID": s}) for m in (
            "getCurrentValidators", "getStakingAssetID", "getCurrentSupply", "getMinStake", "getTotalStake")]
        calls += [call(P, "platform.getValidatorsAt", {"height": "proposed", "subnetID": s})]
        calls += [call(P, "platform.getSubnets", {"ids": [s]})]
    return calls


def x_reads() -> list[Call]:
    return [call(X, "avm.getHeight", {}), call(X, "avm.getTxFee", {}),
            call(X, "avm.getAssetDescription", {"assetID": "AVAX"}),
            call(X, "avm.getAssetDescription", {"assetID": "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"})]


def address_reads(x_addrs: tuple[str, ...] = (EWOQ_X,), p_addrs: tuple[str, ...] = (EWOQ_P,),
                  c_bech: tuple[str, ...] = (EWOQ_C_BECH,), evm: tuple[str, ...] = (EWOQ_EVM,),
                  assets: tuple[str, ...] = ("AVAX",)) -> list[Call]:
    """Balances and UTXOs of some addresses on every chain, the atomic ones included."""
    calls: list[Call] = []
    for a in x_addrs:
        calls += [call(X, "avm.getAllBalances", {"address": a}),
                  call(X, "avm.getAllBalances", {"address": a, "includePartial": True})]
        calls += [call(X, "avm.getBalance", {"address": a, "assetID": s}) for s in assets]
    calls += [call(X, "avm.getUTXOs", {"addresses": list(x_addrs)}),
              call(X, "avm.getUTXOs", {"addresses": list(x_addrs), "limit": 1}),
              call(X, "avm.getUTXOs", {"addresses": list(x_addrs), "sourceChain": "P"}),
              call(X, "avm.getUTXOs", {"addresses": list(x_addrs), "sourceChain": "C"})]
    calls += [call(P, "platform.getBalance", {"addresses": list(p_addrs)}),
              call(P, "platform.getUTXOs", {"addresses": list(p_addrs)}),
              call(P, "platform.getUTXOs", {"addresses": list(p_addrs), "sourceChain": "X"}),
              call(P, "platform.getUTXOs", {"addresses": list(p_addrs), "sourceChain": "C"}),
              call(P, "platform.getStake", {"addresses": list(p_addrs)}),
              call(P, "platform.getStake", {"addresses": list(p_addrs), "validatorsOnly": True})]
    calls += [call(AVAX, "avax.getUTXOs", {"addresses": list(c_bech), "sourceChain": s}) for s in ("X", "P")]
    for a in evm:
        calls += [call(C, "eth_getBalance", [a, "latest"]), call(C, "eth_getTransactionCount", [a, "latest"]),
                  call(C, "eth_getTransactionCount", [a, "pending"]), call(C, "eth_getCode", [a, "latest"])]
    return calls


def evm_reads() -> list[Call]:
    """eth_*, net_*, web3_* that read the C-Chain as a whole."""
    calls = [call(C, m, []) for m in (
        "eth_chainId", "net_version", "web3_clientVersion", "eth_blockNumber", "eth_syncing", "net_listening",
        "net_peerCount", "eth_accounts", "eth_coinbase", "eth_getChainConfig", "eth_baseFee",
        "eth_maxPriorityFeePerGas", "eth_gasPrice", "eth_suggestPriceOptions", "eth_protocolVersion", "eth_mining",
        "eth_hashrate")]
    calls += [call(C, "eth_getBlockByNumber", [n, full])
              for n in ("0x0", "latest", "0x7fffffff") for full in (False, True)]
    calls += [call(C, "eth_getBlockTransactionCountByNumber", [n]) for n in ("0x0", "latest")]
    calls += [call(C, "eth_feeHistory", ["0x2", "latest", [10, 50]])]
    calls += [call(C, "eth_getBalance", ["0x0100000000000000000000000000000000000000", "latest"])]
    return calls


def x_tx_reads(tx_id: str) -> list[Call]:
    return [call(X, "avm.getTx", {"txID": tx_id}), call(X, "avm.getTx", {"txID": tx_id, "encoding": "json"}),
            call(X, "avm.getTxStatus", {"txID": tx_id}), call(X, "avm.getHeight", {})]


def p_tx_reads(tx_id: str) -> list[Call]:
    return [call(P, "platform.getTx", {"txID": tx_id}), call(P, "platform.getTx", {"txID": tx_id, "encoding": "json"}),
            call(P, "platform.getTxStatus", {"txID": tx_id}), call(P, "platform.getHeight", {}),
            call(P, "platform.getRewardUTXOs", {"txID": tx_id})]


def atomic_tx_reads(tx_id: str) -> list[Call]:
    return [call(AVAX, "avax.getAtomicTx", {"txID": tx_id}), call(AVAX, "avax.getAtomicTxStatus", {"txID": tx_id})]


def evm_tx_reads(tx_hash: str, contract: str | None = None, data: str | None = None) -> list[Call]:
    calls = [call(C, "eth_getTransactionByHash", [tx_hash]), call(C, "eth_getTransactionReceipt", [tx_hash]),
             call(C, "eth_getBlockByNumber", ["latest", True]), call(C, "eth_getBlockReceipts", ["latest"]),
             call(C, "eth_getTransactionByBlockNumberAndIndex", ["latest", "0x0"]),
             call(C, "eth_getLogs", [{"fromBlock": "0x0", "toBlock": "latest"}])]
    if contract:
        calls += [call(C, "eth_getCode", [contract, "latest"]),
                  call(C, "eth_getStorageAt", [contract, "0x0", "latest"]),
                  call(C, "eth_getLogs", [{"fromBlock": "0x0", "toBlock": "latest", "address": contract}])]
        if data:
            calls += [call(C, "eth_call", [{"to": contract, "data": data}, "latest"]),
                      call(C, "eth_estimateGas", [{"from": EWOQ_EVM, "to": contract, "data": data}])]
    return calls
