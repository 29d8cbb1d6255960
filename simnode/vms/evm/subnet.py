"""An L1 (subnet-EVM) chain: the C-Chain's EVM engine with the chain's own genesis,
subnet-EVM's execution rules (rules.SubnetEVMVM: no refunds, the whole fee to the coinbase),
fee rules (`feeConfig`, subnet_fees.py) and stateful precompiles (precompiles/). Started by the
node's chain manager (simnode/chain_manager.py) for every CreateChainTx whose VM is subnet-EVM.

Network upgrade times come from the genesis, the node's network and upgrade.json's
`networkUpgradeOverrides` (network_upgrades.py); they set the header fields (headers.py), the
block gas cost (0 from Granite), and the EVM: Cancun from Etna, Shanghai from Durango, Paris
before (fork_vms.py). Precompiles come from the genesis `config.<key>` and from the chain's
upgrade.json (`precompileUpgrades`) in the node's chain config directory (`--chain-config-dir`,
`<chain ID>/upgrade.json`, read when the chain starts, as AvalancheGo reads it); the same
folder's config.json may name the node's `feeRecipient` (used when fee recipients are allowed).
The fee manager's stored config sets a block's fees and the reward manager's stored choice its
coinbase (a field of subnet-EVM's header, headers.py, so part of the block hash), both read from
the parent's state while the precompile is enabled at the parent's timestamp.

Storage: everything under ``L1/<chain ID (32 bytes)>/`` with the C-Chain's layout (block_rows.py),
plus ``upgrades``: the upgrade.json the chain last started with, which a new one must agree with
on every activation already passed (network upgrades and precompiles).

Two differences from subnet-evm, both for local genesis files at time 0, before a local
network's upgrades (2020-12-05): a Warp config or allow-list managers activating before the
chain's Durango are taken (subnet-evm refuses them: "warp cannot be activated before Durango"),
and the EVM runs an upgrade at its network's own time from time 0 (calls against such a genesis
block run Cancun, where subnet-evm runs pre-Shanghai rules; eth_getActiveRulesAt reports them by
their times either way).

eth_getChainConfig and eth_getActiveRulesAt answer as subnet-evm's internal/ethapi does: the
chain config with its upgrade times as they apply (defaults and overrides in), and the rules at
a time (block forks read at block 0, as GetActiveRulesAt passes it).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from ...config import read_chain_config_files
from ...formats.ids import SUBNET_EVM_VM_ID, id_to_str
from ..chain_context import ChainContext
from . import network_upgrades as nu
from .block_rows import BlockInfo
from .evm_chain import EVMChain
from .headers import BLACKHOLE, HeaderRules
from .precompiles import feemanager, rewardmanager
from .precompiles.contract import ChainParams, ConfigError, JSONError
from .precompiles.schedule import Schedule
from .precompiles.upgrades import check_compatible, genesis_configs, parse_upgrade_bytes
from .subnet_fees import FeeConfigError, SubnetEVMFeeRules, SubnetFeeConfig
from ...errors import GenesisError

# libevm's params.Rules flags of the block forks, read at block 0 (GetActiveRulesAt's number)
_ETH_BLOCK_RULES = (("IsHomestead", "homesteadBlock"), ("IsEIP150", "eip150Block"), ("IsEIP155", "eip155Block"),
                    ("IsEIP158", "eip158Block"), ("IsByzantium", "byzantiumBlock"),
                    ("IsConstantinople", "constantinopleBlock"), ("IsPetersburg", "petersburgBlock"),
                    ("IsIstanbul", "istanbulBlock"), ("IsBerlin", "berlinBlock"), ("IsLondon", "londonBlock"))


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


def network_upgrade_times(genesis: dict, network_id: int, upgrade_bytes: bytes | None
                          ) -> tuple[nu.NetworkUpgrades, nu.NetworkUpgrades, dict[str, int] | None]:
    """(the chain's network upgrade times, the network's defaults, upgrade.json's overrides):
    SetDefaults over the genesis config's, then the overrides (GenesisError when one is malformed)."""
    defaults = nu.network_defaults(network_id)
    try:
        given = nu.parse_times(genesis["config"], "ChainConfig")
    except JSONError as exc:
        raise GenesisError(f"parsing genesis: {exc}") from None
    try:
        overrides = nu.parse_overrides(upgrade_bytes)
    except JSONError as exc:
        raise GenesisError(str(exc)) from None
    return nu.schedule(given, overrides, defaults), defaults, overrides


def _time(t: int | None) -> int:
    return nu.NEVER if t is None else t


def header_rules(upgrades: nu.NetworkUpgrades) -> HeaderRules:
    """Where subnet-EVM's optional header fields start: base fee and blockGasCost with SubnetEVM,
    then Durango's, Etna's and Granite's."""
    subnet_evm = _time(upgrades.subnet_evm)
    return HeaderRules(coreth=False, base_fee=subnet_evm, block_gas_cost=subnet_evm, durango=_time(upgrades.durango),
                       etna=_time(upgrades.etna), granite=_time(upgrades.granite))


def base_vms(upgrades: nu.NetworkUpgrades, defaults: nu.NetworkUpgrades) -> tuple[tuple[int, type], ...]:
    """The EVM of each Ethereum fork from its time on (Paris, Shanghai at Durango, Cancun at
    Etna), without P256VERIFY before Granite; none where Cancun and Granite apply from time 0. A fork
    at its network's own time (and the one
    before it too) applies from time 0: those times come before every block a node builds, the
    genesis aside (a genesis at time 0, as local genesis files have, keeps the network's EVM for
    calls against it)."""
    from .fork_vms import PARIS, SHANGHAI, vm_before, with_granite
    from .rules import SubnetEVMVM

    shanghai, cancun = upgrades.shanghai, upgrades.cancun
    if shanghai is not None and shanghai == defaults.shanghai:
        shanghai = 0
        cancun = 0 if cancun is not None and cancun == defaults.cancun else cancun
    out: list[tuple[int, type]] = []
    if cancun != 0:
        if shanghai != 0:
            out.append((0, vm_before(SubnetEVMVM, PARIS)))
        if shanghai is not None:
            out.append((shanghai, vm_before(SubnetEVMVM, SHANGHAI)))
        if cancun is not None:
            out.append((cancun, SubnetEVMVM))
    granite = 0 if upgrades.granite == defaults.granite else upgrades.granite
    return tuple(out) if granite == 0 else with_granite(tuple(out), SubnetEVMVM, granite)


def _subnet_vms(prepare_engine: Callable[[], None], upgrades: nu.NetworkUpgrades,
                defaults: nu.NetworkUpgrades) -> tuple[type, tuple[tuple[int, type], ...]]:
    prepare_engine()
    from .rules import SubnetEVMVM

    return SubnetEVMVM, base_vms(upgrades, defaults)


def precompile_schedule(genesis: dict, fee_config: SubnetFeeConfig, upgrade_bytes: bytes | None,
                        upgrades: nu.NetworkUpgrades, defaults: nu.NetworkUpgrades,
                        prepare_engine: Callable[[], None] = lambda: None) -> Schedule:
    """The chain's precompile configs (genesis, then upgrade.json), verified (GenesisError), and
    its EVMs (py-evm's classes, made on first use after `prepare_engine`)."""
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
        precompile_upgrades = parse_upgrade_bytes(upgrade_bytes) if upgrade_bytes is not None else ()
        chain = ChainParams(fee_config, allow_fee_recipients)
        return Schedule.deferred(functools.partial(_subnet_vms, prepare_engine, upgrades, defaults),
                                 genesis_precompiles, precompile_upgrades, chain)
    except JSONError as exc:
        raise GenesisError(str(exc)) from None
    except ConfigError as exc:
        raise GenesisError(verify_failed + str(exc)) from None


def verify_network_upgrades(genesis: dict, upgrades: nu.NetworkUpgrades, defaults: nu.NetworkUpgrades) -> None:
    """The genesis's last checks (GenesisError): the times against the defaults, then the order
    of the forks (as the chain's genesis block is set up)."""
    try:
        nu.verify(upgrades, defaults)
    except ConfigError as exc:
        raise GenesisError(f"failed to verify genesis: {exc}") from None
    try:
        nu.check_fork_order(nu.eth_forks(genesis["config"], upgrades), upgrades)
    except ConfigError as exc:
        raise GenesisError(str(exc)) from None


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

    def __init__(self, ctx: ChainContext, *, genesis_data: bytes, name: str, subnet_id: bytes) -> None:
        genesis, fee_config = parse_genesis(genesis_data)
        try:
            files = read_chain_config_files(ctx.config.chain_config_dir, (id_to_str(ctx.chain_id),))
        except ValueError as exc:
            raise GenesisError(str(exc)) from None
        self.fee_config = fee_config
        self.fee_recipient = fee_recipient(files.config)
        network_id = ctx.config.network_id
        self.network_upgrades, defaults, self.upgrade_overrides = network_upgrade_times(genesis, network_id,
                                                                                        files.upgrade)
        schedule = precompile_schedule(genesis, fee_config, files.upgrade, self.network_upgrades, defaults,
                                       ctx.prepare_engine)
        verify_network_upgrades(genesis, self.network_upgrades, defaults)
        self.allow_fee_recipients: bool = schedule.chain.allow_fee_recipients
        self._rules_by_root: dict[bytes, SubnetEVMFeeRules] = {}
        super().__init__(ctx, genesis_json=genesis, name=name, aliases=(), prefix=store_prefix(ctx.chain_id),
                         fee_rules=self._fee_rules(fee_config), vm_id=SUBNET_EVM_VM_ID, subnet_id=subnet_id,
                         header_rules=header_rules(self.network_upgrades), precompiles=schedule)
        self._keep_upgrades(files.upgrade)

    def _fee_rules(self, config: SubnetFeeConfig) -> SubnetEVMFeeRules:
        return SubnetEVMFeeRules(config, granite_time=_time(self.network_upgrades.granite))

    def _keep_upgrades(self, upgrade_bytes: bytes | None) -> None:
        """Refuse upgrades that would change an activation the chain has passed (subnet-evm's
        stored-config compatibility check: network upgrades, then precompiles), else remember
        them for the next start."""
        key = self._key(b"upgrades")
        stored = self.store.get(key)
        previous = parse_upgrade_bytes(stored) if stored else ()
        had, _, _ = network_upgrade_times(self.genesis_json, self.ctx.config.network_id, stored)
        reason = check_compatible(self.precompiles.genesis, previous, self.precompiles.upgrades,
                                  self.head.header.timestamp,
                                  lambda ts: nu.incompatibility(had, self.network_upgrades, ts))
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
            rules = self._rules_by_root[root] = self._fee_rules(config)
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
        """eth_getChainConfig: libevm's ChainConfig with subnet-evm's extras at its root (keys in
        order, as Go writes a map), then `upgrades`, upgrade.json as it applies."""
        config = self.genesis_json["config"]
        cfg: dict[str, Any] = {"chainId": self.evm_chain_id, **nu.eth_forks(config, self.network_upgrades),
                               **self.network_upgrades.to_json(), "feeConfig": self.fee_config.to_json()}
        if config.get("daoForkSupport") is True:
            cfg["daoForkSupport"] = True
        if self.allow_fee_recipients:
            cfg["allowFeeRecipients"] = True
        delay = config.get("initialMinDelayMS")
        if isinstance(delay, int) and not isinstance(delay, bool) and delay > 0:
            cfg["initialMinDelayMS"] = delay
        cfg.update({c.key: c.to_json() for c in self.precompiles.genesis})
        upgrades: dict[str, Any] = {}
        if self.upgrade_overrides is not None:
            upgrades["networkUpgradeOverrides"] = {k: self.upgrade_overrides[k] for k in nu.KEYS
                                                   if k in self.upgrade_overrides}
        if self.precompiles.upgrades:
            upgrades["precompileUpgrades"] = [{c.key: c.to_json()} for c in self.precompiles.upgrades]
        return {**dict(sorted(cfg.items())), "upgrades": upgrades}

    def active_precompiles_json(self, timestamp: int) -> dict[str, dict]:
        """eth_getActivePrecompilesAt: the enabled configs at `timestamp`."""
        return {c.key: c.to_json() for c in self.precompiles.active(timestamp)}

    def active_rules_json(self, timestamp: int) -> dict:
        """eth_getActiveRulesAt: libevm's Rules at block 0 and `timestamp` (IsMerge as subnet-evm's
        IsMergeTODO, so Shanghai and Cancun by their times), the Avalanche upgrades active then,
        and the precompiles enabled then, with their activation times."""
        eth = nu.eth_forks(self.genesis_json["config"], self.network_upgrades)
        eth_rules: dict[str, Any] = {"ChainID": self.evm_chain_id}
        eth_rules.update({flag: eth.get(key) == 0 for flag, key in _ETH_BLOCK_RULES})
        london = eth_rules["IsLondon"]
        eth_rules.update({"IsMerge": london,
                          "IsShanghai": london and eth.get("shanghaiTime", nu.NEVER) <= timestamp,
                          "IsCancun": london and eth.get("cancunTime", nu.NEVER) <= timestamp,
                          "IsPrague": False, "IsVerkle": False})
        precompiles = {c.key: {"timestamp": c.timestamp} for c in self.precompiles.active(timestamp)}
        return {"ethRules": eth_rules, "avalancheRules": self.network_upgrades.avalanche_rules(timestamp),
                "precompiles": precompiles}
