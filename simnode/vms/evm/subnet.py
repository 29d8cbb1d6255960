"""An L1 (subnet-EVM) chain: the C-Chain's EVM engine with the chain's own genesis and
subnet-EVM's fee rules (`feeConfig`, subnet_fees.py). Started by the node's chain manager
(simnode/chains.py) for every CreateChainTx whose VM is subnet-EVM.

Storage: everything under ``L1/<chain ID (32 bytes)>/`` with the C-Chain's layout (chain.py).
Precompiles named in the genesis config are not run yet.
"""

from __future__ import annotations

import json
from typing import Any

from ...formats.ids import SUBNET_EVM_VM_ID
from ...network import params_for
from .chain import EVMChain
from .headers import HeaderRules
from .subnet_fees import FeeConfigError, SubnetEVMFeeRules, SubnetFeeConfig

# subnet-evm's upgrade timestamps on a local network: everything active at genesis.
_UPGRADE_KEYS = ("subnetEVMTimestamp", "durangoTimestamp", "etnaTimestamp", "fortunaTimestamp", "graniteTimestamp")
_ETH_BLOCKS = ("homesteadBlock", "eip150Block", "eip155Block", "eip158Block", "byzantiumBlock",
               "constantinopleBlock", "petersburgBlock", "istanbulBlock", "muirGlacierBlock")


class GenesisError(ValueError):
    """The CreateChainTx's genesis bytes are not a usable subnet-EVM genesis."""


def store_prefix(chain_id: bytes) -> bytes:
    return b"L1/" + chain_id + b"/"


def parse_genesis(data: bytes) -> tuple[dict, SubnetFeeConfig]:
    """The genesis JSON and its verified feeConfig; GenesisError with the reason otherwise."""
    try:
        genesis = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise GenesisError(f"failed to unmarshal genesis bytes: {exc}") from None
    if not isinstance(genesis, dict):
        raise GenesisError("failed to unmarshal genesis bytes: not a JSON object")
    config = genesis.get("config")
    if not isinstance(config, dict):
        raise GenesisError("genesis has no chain config")
    chain_id = config.get("chainId")
    if isinstance(chain_id, bool) or not isinstance(chain_id, int) or chain_id <= 0:
        raise GenesisError(f"invalid chainId in genesis config: {chain_id!r}")
    alloc = genesis.get("alloc", {})
    if not isinstance(alloc, dict) or not all(isinstance(v, dict) for v in alloc.values()):
        raise GenesisError("invalid genesis alloc")
    try:
        fee_config = SubnetFeeConfig.from_json(config["feeConfig"]) if "feeConfig" in config else SubnetFeeConfig()
    except FeeConfigError as exc:
        raise GenesisError(f"invalid fee config: {exc}") from None
    for key in ("gasLimit", "timestamp", "difficulty", "nonce"):
        value = genesis.get(key)
        if value is not None and not isinstance(value, (int, str)):
            raise GenesisError(f"invalid genesis {key}: {value!r}")
    return genesis, fee_config


def header_rules(genesis: dict, network_id: int) -> HeaderRules:
    """subnet-EVM's upgrade times (NetworkUpgrades.SetDefaults): the genesis config's, where set
    and not 0, else SubnetEVM at 0 and the network's Durango, Etna and Granite."""
    config = genesis.get("config") or {}
    u = params_for(network_id).upgrades

    def at(key: str, default: int) -> int:
        value = config.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default

    subnet_evm = at("subnetEVMTimestamp", 0)
    return HeaderRules(coreth=False, base_fee=subnet_evm, block_gas_cost=subnet_evm,
                       durango=at("durangoTimestamp", u.durango), etna=at("etnaTimestamp", u.etna),
                       granite=at("graniteTimestamp", u.granite))


class SubnetEVMChain(EVMChain):
    """A subnet-EVM chain (no /avax endpoint: it has no atomic txs)."""

    def __init__(self, ctx: Any, *, genesis_data: bytes, name: str, subnet_id: bytes) -> None:
        genesis, fee_config = parse_genesis(genesis_data)
        self.fee_config = fee_config
        super().__init__(ctx, genesis_json=genesis, name=name, aliases=(), prefix=store_prefix(ctx.chain_id),
                         fee_rules=SubnetEVMFeeRules(fee_config), vm_id=SUBNET_EVM_VM_ID, subnet_id=subnet_id,
                         header_rules=header_rules(genesis, ctx.config.network_id))

    def fee_config_json(self, _block: Any = None) -> dict:
        """eth_feeConfig."""
        # no feeManager precompile yet: the genesis feeConfig, never changed
        return {"feeConfig": self.fee_config.to_json(), "lastChangedAt": 0}

    def chain_config_json(self) -> dict:
        cfg: dict[str, Any] = {k: 0 for k in _ETH_BLOCKS}
        cfg.update({k: 0 for k in _UPGRADE_KEYS})
        cfg.update(self.genesis_json.get("config") or {})
        cfg["feeConfig"] = self.fee_config.to_json()
        cfg.setdefault("allowFeeRecipients", False)
        return dict(sorted(cfg.items()))
