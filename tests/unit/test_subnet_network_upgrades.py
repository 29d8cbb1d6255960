"""subnet-EVM's network upgrade times (defaults, genesis, upgrade.json overrides, verification,
fork order, compatibility on restart) and the EVM each fork brings, against subnet-evm's rules."""

from __future__ import annotations

import json

import pytest
from eth.vm.forks.cancun.computation import CancunComputation
from eth.vm.forks.shanghai.computation import ShanghaiComputation

from simnode.vms.evm import network_upgrades as nu
from simnode.vms.evm.fork_vms import PARIS, POINT_EVALUATION, SHANGHAI, vm_before, vm_before_granite
from simnode.vms.evm.precompiles.contract import ConfigError, JSONError
from simnode.vms.evm.rules import SubnetEVMVM
from simnode.vms.evm.subnet import GenesisError, base_vms, network_upgrade_times, verify_network_upgrades
from simnode.vms.evm.transfer import PLAIN_COMPUTATIONS

LOCAL = 1607144400  # 2020-12-05T05:00:00Z: every upgrade of a local network
UNSCHEDULED = 253399622400  # 9999-12-01T00:00:00Z: Helicon
FUJI_DURANGO, FUJI_ETNA, FUJI_GRANITE = 1707840000, 1732550400, 1761750000  # 2024-02-13T16, 2024-11-25T16, 2025-10-29T15


def times(config: dict, upgrade: dict | None = None, network_id: int = 12345) -> nu.NetworkUpgrades:
    upgrades, _, _ = network_upgrade_times({"config": config}, network_id,
                                           None if upgrade is None else json.dumps(upgrade).encode())
    return upgrades


def test_missing_or_zero_times_are_the_network_defaults():
    want = {"subnetEVMTimestamp": 0, "durangoTimestamp": LOCAL, "etnaTimestamp": LOCAL, "graniteTimestamp": LOCAL,
            "heliconTimestamp": UNSCHEDULED}  # Fortuna has no default
    assert times({}).to_json() == want
    assert times({k: 0 for k in nu.KEYS}).to_json() == want
    assert times({"durangoTimestamp": None}).to_json() == want
    # the node's network: Fuji's own times
    assert times({}, network_id=5).to_json() == {
        "subnetEVMTimestamp": 0, "durangoTimestamp": FUJI_DURANGO, "etnaTimestamp": FUJI_ETNA,
        "graniteTimestamp": FUJI_GRANITE, "heliconTimestamp": UNSCHEDULED}
    # given ones are kept, Shanghai and Cancun follow Durango and Etna
    u = times({"subnetEVMTimestamp": 5, "durangoTimestamp": LOCAL + 10, "etnaTimestamp": LOCAL + 20,
               "fortunaTimestamp": LOCAL + 30, "graniteTimestamp": LOCAL + 40})
    assert (u.subnet_evm, u.durango, u.etna, u.fortuna, u.granite, u.helicon) == (
        5, LOCAL + 10, LOCAL + 20, LOCAL + 30, LOCAL + 40, UNSCHEDULED)
    assert (u.shanghai, u.cancun) == (LOCAL + 10, LOCAL + 20)


def test_overrides_replace_any_time_they_name_zero_included():
    u = times({"graniteTimestamp": LOCAL + 40},
              {"networkUpgradeOverrides": {"graniteTimestamp": LOCAL + 99, "fortunaTimestamp": LOCAL + 50,
                                           "durangoTimestamp": 0, "etnaTimestamp": None}})
    assert u.to_json() == {"subnetEVMTimestamp": 0, "durangoTimestamp": 0, "etnaTimestamp": LOCAL,
                           "fortunaTimestamp": LOCAL + 50, "graniteTimestamp": LOCAL + 99,
                           "heliconTimestamp": UNSCHEDULED}
    assert nu.parse_overrides(b'{"precompileUpgrades": []}') is None
    assert nu.parse_overrides(b'{"networkUpgradeOverrides": {}}') == {}


@pytest.mark.parametrize(("upgrade", "message"), [
    (b'{"networkUpgradeOverrides": {"durangoTimestamp": "soon"}}',
     "failed to parse upgrade bytes: json: cannot unmarshal string into Go struct field "
     "NetworkUpgrades.networkUpgradeOverrides.durangoTimestamp of type uint64"),
    (b'{"networkUpgradeOverrides": {"etnaTimestamp": -1}}',
     "failed to parse upgrade bytes: json: cannot unmarshal number into Go struct field "
     "NetworkUpgrades.networkUpgradeOverrides.etnaTimestamp of type uint64"),
    (b'{"networkUpgradeOverrides": [1]}',
     "failed to parse upgrade bytes: json: cannot unmarshal into Go struct field "
     "UpgradeConfig.networkUpgradeOverrides of type extras.NetworkUpgrades"),
])
def test_malformed_overrides(upgrade: bytes, message: str):
    with pytest.raises(GenesisError) as info:
        network_upgrade_times({"config": {}}, 12345, upgrade)
    assert str(info.value) == message


def test_malformed_genesis_times():
    with pytest.raises(GenesisError) as info:
        network_upgrade_times({"config": {"graniteTimestamp": 1.5}}, 12345, None)
    assert str(info.value) == ("parsing genesis: json: cannot unmarshal number into Go struct field "
                               "ChainConfig.graniteTimestamp of type uint64")


def refused(config: dict, upgrade: dict | None = None, network_id: int = 12345) -> str:
    genesis = {"config": config}
    upgrades, defaults, _ = network_upgrade_times(genesis, network_id, json.dumps(upgrade or {}).encode())
    with pytest.raises(GenesisError) as info:
        verify_network_upgrades(genesis, upgrades, defaults)
    return str(info.value)


def test_verification_against_the_defaults_and_fork_order():
    invalid = "failed to verify genesis: invalid network upgrades: "
    assert refused({}, {"networkUpgradeOverrides": {"graniteTimestamp": 5}}) == (
        invalid + "granite fork block timestamp is invalid: provided timestamp must be greater than or equal to "
        f"the default timestamp: provided timestamp 5, default timestamp {LOCAL}")
    # Helicon is unscheduled: it cannot come earlier
    assert refused({"heliconTimestamp": LOCAL + 1}) == (
        invalid + "helicon fork block timestamp is invalid: provided timestamp must be greater than or equal to "
        f"the default timestamp: provided timestamp {LOCAL + 1}, default timestamp {UNSCHEDULED}")
    # 0 is "active from the start" only where the default is initially active (not on Fuji)
    assert refused({}, {"networkUpgradeOverrides": {"durangoTimestamp": 0}}, network_id=5) == (
        invalid + "durango fork block timestamp is invalid: provided timestamp must be greater than or equal to "
        f"the default timestamp: provided timestamp 0, default timestamp {FUJI_DURANGO}")
    # in order: Ethereum's forks first (Shanghai with Durango, Cancun with Etna), then Avalanche's
    assert refused({"durangoTimestamp": LOCAL + 20, "etnaTimestamp": LOCAL + 10}) == (
        f"unsupported fork ordering: shanghaiTime enabled at timestamp {LOCAL + 20}, but cancunTime enabled at "
        f"timestamp {LOCAL + 10}")
    assert refused({"etnaTimestamp": LOCAL + 20, "graniteTimestamp": LOCAL + 10}) == (
        f"unsupported fork ordering: etnaTimestamp enabled at timestamp {LOCAL + 20}, but graniteTimestamp enabled "
        f"at timestamp {LOCAL + 10}")
    # Fortuna is optional: unset between set forks is fine, set it must be in order
    assert refused({"fortunaTimestamp": LOCAL + 50, "graniteTimestamp": LOCAL + 10}) == (
        f"unsupported fork ordering: fortunaTimestamp enabled at timestamp {LOCAL + 50}, but graniteTimestamp "
        f"enabled at timestamp {LOCAL + 10}")
    assert refused({"homesteadBlock": 5, "eip150Block": 0}) == (
        "unsupported fork ordering: homesteadBlock enabled at block 5, but eip150Block enabled at block 0")
    # a later Etna needs a later Granite too (the default one comes before it)
    assert refused({"etnaTimestamp": LOCAL + 10}) == (
        f"unsupported fork ordering: etnaTimestamp enabled at timestamp {LOCAL + 10}, but graniteTimestamp enabled "
        f"at timestamp {LOCAL}")
    genesis = {"config": {"durangoTimestamp": LOCAL + 10, "etnaTimestamp": LOCAL + 10, "graniteTimestamp": LOCAL + 10}}
    verify_network_upgrades(genesis, *network_upgrade_times(genesis, 12345, None)[:2])


def test_eth_forks_and_rules():
    u = times({"durangoTimestamp": LOCAL + 10, "etnaTimestamp": LOCAL + 20})
    eth = nu.eth_forks({"homesteadBlock": 0, "daoForkBlock": 7, "berlinBlock": 3}, u)
    assert eth == {"homesteadBlock": 0, "daoForkBlock": 7, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
                   "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
                   "muirGlacierBlock": 0, "berlinBlock": 3, "londonBlock": 0, "shanghaiTime": LOCAL + 10,
                   "cancunTime": LOCAL + 20}
    # an unscheduled Durango or Etna schedules no Shanghai or Cancun
    late = times({"durangoTimestamp": UNSCHEDULED, "etnaTimestamp": UNSCHEDULED, "graniteTimestamp": UNSCHEDULED})
    assert (late.shanghai, late.cancun) == (None, None)
    assert "shanghaiTime" not in nu.eth_forks({}, late)
    assert u.avalanche_rules(LOCAL + 9) == {"IsSubnetEVM": True, "IsDurango": False, "IsEtna": False,
                                            "IsFortuna": False, "IsGranite": True, "IsHelicon": False}
    assert u.avalanche_rules(LOCAL + 20) == {"IsSubnetEVM": True, "IsDurango": True, "IsEtna": True,
                                             "IsFortuna": False, "IsGranite": True, "IsHelicon": False}


def test_incompatible_moves_of_passed_activations():
    stored = times({"durangoTimestamp": LOCAL + 10, "graniteTimestamp": LOCAL + 30})
    moved = times({"durangoTimestamp": LOCAL + 10, "graniteTimestamp": LOCAL + 40})
    assert nu.incompatibility(stored, moved, LOCAL + 29) is None  # not passed yet: free to move
    err = nu.incompatibility(stored, moved, LOCAL + 35)
    assert (err.what, err.stored, err.new, err.rewind_to) == ("Granite fork block timestamp", LOCAL + 30,
                                                              LOCAL + 40, LOCAL + 29)
    # Durango moves Shanghai too, which libevm checks first
    earlier = times({"durangoTimestamp": LOCAL + 5, "graniteTimestamp": LOCAL + 30})
    err = nu.incompatibility(stored, earlier, LOCAL + 7)
    assert (err.what, err.stored, err.new, err.rewind_to) == ("Shanghai fork timestamp", LOCAL + 10, LOCAL + 5,
                                                              LOCAL + 4)
    assert str(err) == (f"mismatching Shanghai fork timestamp in database (have timestamp {LOCAL + 10}, want "
                        f"timestamp {LOCAL + 5}, rewindto timestamp {LOCAL + 4})")
    fortuna = times({}, {"networkUpgradeOverrides": {"fortunaTimestamp": LOCAL + 3}})
    assert str(nu.incompatibility(times({}), fortuna, LOCAL + 3)) == (
        f"mismatching Fortuna fork block timestamp in database (have timestamp nil, want timestamp {LOCAL + 3}, "
        f"rewindto timestamp {LOCAL + 2})")


def test_the_evm_of_each_fork():
    paris, shanghai = vm_before(SubnetEVMVM, PARIS), vm_before(SubnetEVMVM, SHANGHAI)
    local, fuji = nu.network_defaults(12345), nu.network_defaults(5)
    u = times({"durangoTimestamp": LOCAL + 10, "etnaTimestamp": LOCAL + 20})
    assert base_vms(u, local) == ((0, paris), (LOCAL + 10, shanghai), (LOCAL + 20, SubnetEVMVM))
    # the network's own times apply from time 0 (before every block but a genesis at 0)
    assert base_vms(times({}), local) == ()
    # a Granite of its own: no P256VERIFY before it
    assert base_vms(times({"graniteTimestamp": LOCAL + 30}), local) == (
        (0, vm_before_granite(SubnetEVMVM)), (LOCAL + 30, SubnetEVMVM))
    assert base_vms(times({"etnaTimestamp": LOCAL + 20, "graniteTimestamp": LOCAL + 30}), local) == (
        (0, vm_before_granite(shanghai)), (LOCAL + 20, vm_before_granite(SubnetEVMVM)), (LOCAL + 30, SubnetEVMVM))
    assert base_vms(times({"etnaTimestamp": LOCAL + 20}), local) == ((0, shanghai), (LOCAL + 20, SubnetEVMVM))
    assert base_vms(times({}, {"networkUpgradeOverrides": {"etnaTimestamp": 0, "durangoTimestamp": 0}}), local) == ()
    # an unscheduled Etna: Shanghai for good
    assert base_vms(times({"etnaTimestamp": UNSCHEDULED}), local) == ((0, shanghai),)
    # on Fuji, Fuji's times
    assert base_vms(times({}, network_id=5), fuji) == ()
    assert base_vms(times({"durangoTimestamp": FUJI_ETNA}, network_id=5), fuji) == (
        (0, paris), (FUJI_ETNA, shanghai), (FUJI_ETNA, SubnetEVMVM))
    comp = {vm: vm.get_state_class().computation_class for vm in (paris, shanghai, SubnetEVMVM)}
    push0, tstore, mcopy, blobbasefee = 0x5F, 0x5D, 0x5E, 0x4A
    assert all(op in comp[SubnetEVMVM].opcodes for op in (push0, tstore, mcopy, blobbasefee))
    assert push0 in comp[shanghai].opcodes and not {tstore, mcopy, blobbasefee} & set(comp[shanghai].opcodes)
    assert not {push0, tstore, mcopy, blobbasefee} & set(comp[paris].opcodes)
    assert set(comp[shanghai].opcodes) == set(ShanghaiComputation.opcodes)
    assert POINT_EVALUATION in CancunComputation.get_precompiles()
    assert POINT_EVALUATION in comp[SubnetEVMVM].get_precompiles()
    assert POINT_EVALUATION not in comp[shanghai].get_precompiles() | comp[paris].get_precompiles()
    # the chain's accounts, fees and fast transfers stay
    for vm in (paris, shanghai):
        assert issubclass(vm, SubnetEVMVM) and comp[vm] in PLAIN_COMPUTATIONS
        assert vm.get_state_class().get_account_db_class() is SubnetEVMVM.get_state_class().get_account_db_class()
    assert vm_before(SubnetEVMVM, PARIS) is paris


def test_check_fork_order_errors_are_config_errors():
    with pytest.raises(ConfigError):
        nu.check_fork_order({"homesteadBlock": 1, "eip150Block": 0}, times({}))
    with pytest.raises(JSONError):
        nu.parse_times({"etnaTimestamp": True}, "ChainConfig")
