"""The eth_ methods Avalanche's EVMs add to geth's: coreth's (on every chain here: eth_baseFee,
eth_getChainConfig, eth_callDetailed; eth_suggestPriceOptions on the C-Chain alone) and subnet-EVM's (on L1 chains:
eth_feeConfig, its eth_getChainConfig, eth_getActivePrecompilesAt, eth_getActiveRulesAt)."""

from __future__ import annotations

from typing import Any

from ...formats.jsonnum import json_kind
from ...network import params_for
from ...rpc.jsonrpc import EthService, InvalidParams
from .evm_chain import EVMChain
from .rpcjson import hx, parse_state_overrides
from .service import EthAPI
from .subnet import SubnetEVMChain

_ETH_FORK_BLOCKS = ("homesteadBlock", "daoForkBlock", "eip150Block", "eip155Block", "eip158Block", "byzantiumBlock",
                    "constantinopleBlock", "petersburgBlock", "istanbulBlock", "muirGlacierBlock")


def chain_config_json(chain: EVMChain) -> dict:
    """coreth's eth_getChainConfig: Ethereum fork blocks from the genesis, Avalanche upgrade
    times from the network's schedule (shanghai = Durango, cancun = Etna)."""
    u = params_for(chain.ctx.config.network_id).upgrades
    genesis_config = chain.genesis_json.get("config", {})
    cfg: dict[str, Any] = {name: genesis_config.get(name, 0) for name in _ETH_FORK_BLOCKS}
    cfg.update({
        "chainId": chain.evm_chain_id, "daoForkSupport": genesis_config.get("daoForkSupport", True),
        "berlinBlock": u.berlin_block, "londonBlock": u.london_block, "shanghaiTime": u.durango, "cancunTime": u.etna,
        "apricotPhase1BlockTimestamp": u.apricot_phase1, "apricotPhase2BlockTimestamp": u.apricot_phase2,
        "apricotPhase3BlockTimestamp": u.apricot_phase3, "apricotPhase4BlockTimestamp": u.apricot_phase4,
        "apricotPhase5BlockTimestamp": u.apricot_phase5, "apricotPhasePre6BlockTimestamp": u.apricot_phase_pre6,
        "apricotPhase6BlockTimestamp": u.apricot_phase6, "apricotPhasePost6BlockTimestamp": u.apricot_phase_post6,
        "banffBlockTimestamp": u.banff, "cortinaBlockTimestamp": u.cortina, "durangoBlockTimestamp": u.durango,
        "etnaTimestamp": u.etna, "fortunaTimestamp": u.fortuna, "graniteTimestamp": u.granite,
        "heliconTimestamp": u.helicon,
    })
    return dict(sorted(cfg.items()))


def register_coreth_extras(svc: EthService, api: EthAPI) -> None:
    chain = api.chain
    reg = svc.register

    reg("eth_baseFee", lambda: hx(chain.next_base_fee()))

    def suggest_price_options() -> dict:
        tip = api.suggested_tip()
        base = chain.next_base_fee()
        cap = 20 * 10**9
        slow = max(min(tip, cap) * 95 // 100, 1)
        normal = min(tip, cap)
        fast = tip * 105 // 100
        def mk(t: int) -> dict[str, str]:
            return {"maxPriorityFeePerGas": hx(t), "maxFeePerGas": hx(2 * base + t)}
        return {"slow": mk(slow), "normal": mk(normal), "fast": mk(fast)}
    if not isinstance(chain, SubnetEVMChain):  # coreth's own (api.coreth.go); subnet-EVM has no such method
        reg("eth_suggestPriceOptions", suggest_price_options)
    reg("eth_getChainConfig", lambda: chain_config_json(chain))

    def call_detailed(obj: Any, tag: Any = None, overrides: Any = None) -> dict:
        return api.exec.call_detailed(api.call_args(obj), api._latest_or_block(tag),
                                      parse_state_overrides(overrides, 2))
    reg("eth_callDetailed", call_detailed, 1, 3)


def register_subnet_extras(svc: EthService, api: EthAPI, chain: SubnetEVMChain) -> None:
    """subnet-EVM's own eth_ methods (internal/ethapi api_extra.go)."""

    def fee_config(tag: Any = None) -> dict:
        block = api.resolve(tag, 0)
        assert block is not None
        return chain.fee_config_json(block)
    svc.register("eth_feeConfig", fee_config, 0, 1)
    svc.register("eth_getChainConfig", chain.chain_config_json)

    def timestamp(value: Any) -> int:
        """A `*uint64` argument: a JSON number, else the head's timestamp."""
        if value is None:
            return chain.head.header.timestamp
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 64:
            raise InvalidParams(f"invalid argument 0: json: cannot unmarshal {json_kind(value)} into Go value of "
                                "type uint64")
        return value
    svc.register("eth_getActivePrecompilesAt", lambda ts=None: chain.active_precompiles_json(timestamp(ts)), 0, 1)
    svc.register("eth_getActiveRulesAt", lambda ts=None: chain.active_rules_json(timestamp(ts)), 0, 1)
