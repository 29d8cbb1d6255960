"""An L1 (subnet-EVM) chain: the C-Chain's EVM engine with the chain's own genesis,
subnet-EVM's execution rules (rules.SubnetEVMVM: no refunds, the whole fee to the coinbase),
fee rules (`feeConfig`, subnet_fees.py) and stateful precompiles (precompiles/). Started by the
node's chain manager (simnode/chains.py) for every CreateChainTx whose VM is subnet-EVM.

Precompiles come from the genesis `config.<key>` and from the chain's upgrade.json
(`precompileUpgrades`) in the node's chain config directory (`--chain-config-dir`,
`<chain ID>/upgrade.json`, read when the chain starts, as AvalancheGo reads it); the same
folder's config.json may name the node's `feeRecipient` (used when fee recipients are allowed).
The fee manager's stored config sets a block's fees and the reward manager's stored choice its
coinbase (a field of subnet-EVM's header, headers.py, so part of the block hash), both read from
the parent's state while the precompile is enabled at the parent's timestamp.

Storage: everything under ``L1/<chain ID (32 bytes)>/`` with the C-Chain's layout (chain.py),
plus ``upgrades``: the upgrade.json the chain last started with, which a new one must agree with
on every activation already passed.
"""

from __future__ import annotations

import json
from typing import Any

from ...config import read_chain_config_files
from ...formats.ids import SUBNET_EVM_VM_ID, id_to_str
from ...network import params_for
from .chain import BlockInfo, EVMChain
from .headers import HeaderRules
from .precompiles import feemanager, rewardmanager
from .precompiles.contract import ChainParams, ConfigError, JSONError
from .precompiles.schedule import Schedule
from .precompiles.upgrades import check_compatible, genesis_configs, parse_upgrade_bytes
from .rules import BLACKHOLE, SubnetEVMVM
from .subnet_fees import FeeConfigError, SubnetEVMFeeRules, SubnetFeeConfig

# subnet-evm's upgrade timestamps on a local network: everything active at genesis.
_UPGRADE_KEYS = ("subnetEVMTimestamp", "durangoTimestamp", "etnaTimestamp", "fortunaTimestamp", "graniteTimestamp")
_ETH_BLOCKS = ("homesteadBlock", "eip150Block", "eip155Block", "eip158Block", "byzantiumBlock",
               "constantinopleBlock", "petersburgBlock", "istanbulBlock", "muirGlacierBlock")
# libevm's params.Rules flags that are on (Shanghai with Durango, Cancun with Etna; IsMerge as
# subnet-evm's IsMergeTODO)
_ETH_RULES = ("IsHomestead", "IsEIP150", "IsEIP155", "IsEIP158", "IsByzantium", "IsConstantinople", "IsPetersburg",
              "IsIstanbul", "IsBerlin", "IsLondon", "IsMerge", "IsShanghai", "IsCancun")


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


def precompile_schedule(genesis: dict, fee_config: SubnetFeeConfig, upgrade_bytes: bytes | None) -> Schedule:
    """The chain's precompile configs (genesis, then upgrade.json), verified (GenesisError)."""
    config = genesis["config"]
    allow_fee_recipients = config.get("allowFeeRecipients", False)
    if not isinstance(allow_fee_recipients, bool):
        raise GenesisError("parsing genesis: json: cannot unmarshal allowFeeRecipients into Go struct field "
                           "ChainConfig.allowFeeRecipients of type bool")
    verify_failed = "failed to verify genesis: invalid precompile upgrades: "
    try:
        genesis_precompiles = genesis_configs(config)
    except JSONError as exc:
        raise GenesisError(f"parsing genesis: {exc}") from None
    except ConfigError as exc:
        raise GenesisError(verify_failed + str(exc)) from None
    try:
        upgrades = parse_upgrade_bytes(upgrade_bytes) if upgrade_bytes is not None else ()
        return Schedule(SubnetEVMVM, genesis_precompiles, upgrades, ChainParams(fee_config, allow_fee_recipients))
    except JSONError as exc:
        raise GenesisError(str(exc)) from None
    except ConfigError as exc:
        raise GenesisError(verify_failed + str(exc)) from None


def fee_recipient(config_bytes: bytes | None) -> bytes:
    """config.json's `feeRecipient`, or the blackhole (subnet-evm's etherbase)."""
    if config_bytes is None:
        return BLACKHOLE
    try:
        value = json.loads(config_bytes.decode("utf-8")).get("feeRecipient")
    except (UnicodeDecodeError, ValueError, AttributeError):
        raise GenesisError("failed to unmarshal config: not a JSON object") from None
    if isinstance(value, str):
        digits = value[2:] if value[:2].lower() == "0x" else value
        if len(digits) == 40:
            try:
                return bytes.fromhex(digits)
            except ValueError:
                pass
    return BLACKHOLE


class SubnetEVMChain(EVMChain):
    """A subnet-EVM chain (no /avax endpoint: it has no atomic txs)."""

    def __init__(self, ctx: Any, *, genesis_data: bytes, name: str, subnet_id: bytes) -> None:
        genesis, fee_config = parse_genesis(genesis_data)
        try:
            files = read_chain_config_files(ctx.config.chain_config_dir, (id_to_str(ctx.chain_id),))
        except ValueError as exc:
            raise GenesisError(str(exc)) from None
        self.fee_config = fee_config
        self.fee_recipient = fee_recipient(files.config)
        schedule = precompile_schedule(genesis, fee_config, files.upgrade)
        self.allow_fee_recipients: bool = schedule.chain.allow_fee_recipients
        self._rules_by_root: dict[bytes, SubnetEVMFeeRules] = {}
        super().__init__(ctx, genesis_json=genesis, name=name, aliases=(), prefix=store_prefix(ctx.chain_id),
                         fee_rules=SubnetEVMFeeRules(fee_config), vm_id=SUBNET_EVM_VM_ID, subnet_id=subnet_id,
                         header_rules=header_rules(genesis, ctx.config.network_id), precompiles=schedule)
        self._keep_upgrades(files.upgrade)

    def _keep_upgrades(self, upgrade_bytes: bytes | None) -> None:
        """Refuse upgrades that would change an activation the chain has passed (subnet-evm's
        stored-config compatibility check), else remember them for the next start."""
        key = self._key(b"upgrades")
        stored = self.store.get(key)
        previous = parse_upgrade_bytes(stored) if stored else ()
        reason = check_compatible(self.precompiles.genesis, previous, self.precompiles.upgrades,
                                  self.head.header.timestamp)
        if reason is not None:
            self.close()
            raise GenesisError(reason)
        if stored != upgrade_bytes:
            batch = self.store.batch()
            if upgrade_bytes is None:
                batch.delete(key)
            else:
                batch.put(key, upgrade_bytes)
            batch.commit()

    def _parent_root(self, parent: BlockInfo) -> bytes:
        # the head's child builds on the latest state (dev edits included), as the builder does
        return self.state_root if parent.number == self.head.number else parent.header.state_root

    def fee_config_at(self, block: BlockInfo) -> tuple[SubnetFeeConfig, int]:
        """GetFeeConfigAt: the fee config `block`'s child follows, and the block it was set in."""
        if not self.precompiles.enabled(feemanager.ADDRESS, block.header.timestamp):
            return self.fee_config, 0
        view = self.view(block)
        return feemanager.stored_config(view), feemanager.last_changed_at(view)

    def fee_rules_for(self, parent: BlockInfo) -> SubnetEVMFeeRules:
        if not self.precompiles.enabled(feemanager.ADDRESS, parent.header.timestamp):
            return self.fee_rules
        root = self._parent_root(parent)
        rules = self._rules_by_root.get(root)
        if rules is None:
            if len(self._rules_by_root) >= 64:
                self._rules_by_root.clear()
            config, _ = self.fee_config_at(parent)
            config.verify()  # defense in depth, as subnet-evm: a stored config is valid
            rules = self._rules_by_root[root] = SubnetEVMFeeRules(config)
        return rules

    def coinbase_for(self, parent: BlockInfo) -> bytes:
        """GetCoinbaseAt, then the miner's choice: the fee recipient where fee recipients are
        allowed, else the configured address (the blackhole unless the reward manager names one)."""
        if self.precompiles.enabled(rewardmanager.ADDRESS, parent.header.timestamp):
            address, allowed = rewardmanager.stored_reward(self.view(parent))
        else:
            address, allowed = BLACKHOLE, self.allow_fee_recipients
        return self.fee_recipient if allowed else address

    def fee_config_json(self, block: BlockInfo) -> dict:
        """eth_feeConfig at `block`."""
        config, last_changed = self.fee_config_at(block)
        return {"feeConfig": config.to_json(), "lastChangedAt": last_changed}

    def chain_config_json(self) -> dict:
        cfg: dict[str, Any] = {k: 0 for k in _ETH_BLOCKS}
        cfg.update({k: 0 for k in _UPGRADE_KEYS})
        cfg.update(self.genesis_json.get("config") or {})
        cfg["feeConfig"] = self.fee_config.to_json()
        cfg.setdefault("allowFeeRecipients", False)
        cfg.update({c.key: c.to_json() for c in self.precompiles.genesis})
        upgrades = [{c.key: c.to_json()} for c in self.precompiles.upgrades]
        out = dict(sorted(cfg.items()))
        out["upgrades"] = {"precompileUpgrades": upgrades} if upgrades else {}
        return out

    def active_precompiles_json(self, timestamp: int) -> dict[str, dict]:
        """eth_getActivePrecompilesAt: the enabled configs at `timestamp`."""
        return {c.key: c.to_json() for c in self.precompiles.active(timestamp)}

    def active_rules_json(self, timestamp: int) -> dict:
        """eth_getActiveRulesAt: Ethereum and Avalanche rules (every upgrade of a simnode L1 is
        active from genesis, Helicon is not scheduled) and the enabled precompiles."""
        eth_rules = {"ChainID": self.evm_chain_id, **{k: True for k in _ETH_RULES}, "IsPrague": False,
                     "IsVerkle": False}
        avalanche_rules = {"IsSubnetEVM": True, "IsDurango": True, "IsEtna": True, "IsFortuna": True,
                           "IsGranite": True, "IsHelicon": False}
        precompiles = {c.key: {"timestamp": c.timestamp} for c in self.precompiles.active(timestamp)}
        return {"ethRules": eth_rules, "avalancheRules": avalanche_rules, "precompiles": precompiles}
