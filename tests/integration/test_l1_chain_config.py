"""An L1's network upgrades through a real node, as subnet-evm reports and runs them:
eth_getChainConfig with the times of the genesis, the network's defaults (0 or missing) and
upgrade.json's networkUpgradeOverrides; eth_getActiveRulesAt before and after each time; the
EVM of each fork (PUSH0 from Durango, the coinbase warm from Durango, TSTORE from Etna) and the
block gas cost up to Granite; overrides that would move a passed activation stop the chain."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from simnode.config import NodeConfig
from simnode.formats import id_to_str
from simnode.node import Node

from .rpc import call
from .test_l1_evm_chain import EWOQ, FEE_CONFIG, GENESIS, GWEI, L1_CHAIN_ID, create_l1, l1_web3

LOCAL = 1607144400  # every upgrade of a local network: 2020-12-05T05:00:00Z
UNSCHEDULED = 253399622400  # Helicon: 9999-12-01T00:00:00Z
ETH_BLOCKS = {k: 0 for k in ("homesteadBlock", "eip150Block", "eip155Block", "eip158Block", "byzantiumBlock",
                             "constantinopleBlock", "petersburgBlock", "istanbulBlock", "muirGlacierBlock",
                             "berlinBlock", "londonBlock")}
PUSH0_RETURN = "5f5ff3"  # PUSH0 PUSH0 RETURN
TSTORE = "600160005d00"  # PUSH1 1 PUSH1 0 TSTORE STOP
COINBASE_BALANCE = "41315000"  # COINBASE BALANCE POP STOP


def advance(h, seconds: int) -> int:
    return int(call(h.url + "/ext/simnode", "simnode.advanceTime", {"seconds": seconds})["timestamp"])


def genesis(**times: int) -> bytes:
    g = copy.deepcopy(GENESIS)
    g["config"].update(times)
    return json.dumps(g).encode()


def chain_config(**times: int) -> dict:
    """eth_getChainConfig of the test genesis, with `times` the upgrade times as they apply."""
    return {**ETH_BLOCKS, "chainId": L1_CHAIN_ID, "feeConfig": FEE_CONFIG,
            "shanghaiTime": times["durangoTimestamp"], "cancunTime": times["etnaTimestamp"], **times}


def eth_rules(shanghai: bool, cancun: bool) -> dict:
    return {"ChainID": L1_CHAIN_ID, "IsHomestead": True, "IsEIP150": True, "IsEIP155": True, "IsEIP158": True,
            "IsByzantium": True, "IsConstantinople": True, "IsPetersburg": True, "IsIstanbul": True,
            "IsBerlin": True, "IsLondon": True, "IsMerge": True, "IsShanghai": shanghai, "IsCancun": cancun,
            "IsPrague": False, "IsVerkle": False}


def avalanche_rules(*active: str) -> dict:
    return {f"Is{name}": name in active for name in ("SubnetEVM", "Durango", "Etna", "Fortuna", "Granite", "Helicon")}


def deploy(rpc: str, code: str) -> tuple[int, int, int]:
    """(status, gas used, the block's blockGasCost) of a creation tx running `code` as initcode."""
    w3 = l1_web3(rpc)
    tx = {"chainId": L1_CHAIN_ID, "nonce": w3.eth.get_transaction_count(EWOQ.address, "pending"), "data": "0x" + code,
          "gas": 100_000, "maxFeePerGas": 300 * GWEI, "maxPriorityFeePerGas": GWEI, "value": 0}
    rc = w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(EWOQ.sign_transaction(tx).raw_transaction),
                                             timeout=10, poll_latency=0.01)
    block = call(rpc, "eth_getBlockByNumber", [hex(rc.blockNumber), False])
    return rc.status, rc.gasUsed, int(block["blockGasCost"], 16)


P256_VALID = json.loads((Path(__file__).parents[1] / "vectors" / "p256verify.json").read_text())[0]


def p256_verify(rpc: str) -> str:
    """eth_call of Granite's P256VERIFY (0x…0100) with a valid signature."""
    return call(rpc, "eth_call", [{"to": "0x" + "00" * 18 + "0100", "data": "0x" + P256_VALID["input"]}])


def last_tx_error(rpc: str) -> str | None:
    """The callTracer's error of the head block's tx: the trace re-runs it with its fork's opcodes."""
    block = call(rpc, "eth_getBlockByNumber", ["latest", False])
    return call(rpc, "debug_traceTransaction", [block["transactions"][0], {"tracer": "callTracer"}]).get("error")


def test_explicit_times_in_the_genesis(tmp_path):
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual")) as h:
        t0 = advance(h, 0)
        durango, etna, fortuna, granite = t0 + 100, t0 + 200, t0 + 250, t0 + 300
        _, cid = create_l1(h, genesis(durangoTimestamp=durango, etnaTimestamp=etna, fortunaTimestamp=fortuna,
                                      graniteTimestamp=granite))
        rpc = h.url + f"/ext/bc/{id_to_str(cid)}/rpc"
        assert call(rpc, "eth_getChainConfig") == {
            **chain_config(subnetEVMTimestamp=0, durangoTimestamp=durango, etnaTimestamp=etna,
                           fortunaTimestamp=fortuna, graniteTimestamp=granite, heliconTimestamp=UNSCHEDULED),
            "upgrades": {}}
        rules = {ts: call(rpc, "eth_getActiveRulesAt", [ts]) for ts in
                 (0, durango - 1, durango, etna - 1, etna, fortuna - 1, fortuna, granite - 1, granite, UNSCHEDULED)}
        for ts, eth, avalanche in (
                (0, eth_rules(False, False), avalanche_rules("SubnetEVM")),
                (durango - 1, eth_rules(False, False), avalanche_rules("SubnetEVM")),
                (durango, eth_rules(True, False), avalanche_rules("SubnetEVM", "Durango")),
                (etna - 1, eth_rules(True, False), avalanche_rules("SubnetEVM", "Durango")),
                (etna, eth_rules(True, True), avalanche_rules("SubnetEVM", "Durango", "Etna")),
                (fortuna - 1, eth_rules(True, True), avalanche_rules("SubnetEVM", "Durango", "Etna")),
                (fortuna, eth_rules(True, True), avalanche_rules("SubnetEVM", "Durango", "Etna", "Fortuna")),
                (granite - 1, eth_rules(True, True), avalanche_rules("SubnetEVM", "Durango", "Etna", "Fortuna")),
                (granite, eth_rules(True, True), avalanche_rules("SubnetEVM", "Durango", "Etna", "Fortuna", "Granite")),
                (UNSCHEDULED, eth_rules(True, True), avalanche_rules("SubnetEVM", "Durango", "Etna", "Fortuna",
                                                                     "Granite", "Helicon"))):
            assert rules[ts] == {"ethRules": eth, "avalancheRules": avalanche, "precompiles": {}}, ts
        # the head (block 0 at time 0) is before Durango: the rules of the head by default
        assert call(rpc, "eth_getActiveRulesAt") == rules[0]

        assert p256_verify(rpc) == "0x"  # no precompile at 0x…0100 before Granite
        # before Durango: no PUSH0, no TSTORE, a cold coinbase, and a block gas cost that grows
        # with blocks faster than the 2 s target
        assert deploy(rpc, PUSH0_RETURN) == (0, 100_000, 0)  # an invalid opcode uses all the gas
        assert last_tx_error(rpc) == "invalid opcode: PUSH0"
        assert deploy(rpc, TSTORE) == (0, 100_000, 400_000)
        cold = deploy(rpc, COINBASE_BALANCE)
        assert cold == (1, 55_656, 800_000)
        advance(h, 100)  # Durango (Shanghai): PUSH0, the coinbase warm from the start, initcode gas
        assert deploy(rpc, PUSH0_RETURN)[:2] == (1, 53_054)
        assert deploy(rpc, TSTORE)[:2] == (0, 100_000)
        assert last_tx_error(rpc) == "invalid opcode: TSTORE"
        status, warm, _ = deploy(rpc, COINBASE_BALANCE)
        assert status == 1 and cold[1] - warm == 2_600 - 100 - 2  # cold → warm BALANCE, less 1 initcode word
        advance(h, 100)  # Etna (Cancun): TSTORE
        assert deploy(rpc, TSTORE)[:2] == (1, 53_180)
        assert deploy(rpc, TSTORE)[2] > 0
        advance(h, 100)  # Granite: no block gas cost, P256VERIFY
        assert [deploy(rpc, TSTORE) for _ in range(2)] == [(1, 53_180, 0)] * 2
        assert p256_verify(rpc) == "0x" + "00" * 31 + "01"


def test_zero_or_missing_times_are_the_networks():
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True)) as h:
        _, cid = create_l1(h, genesis(durangoTimestamp=0, graniteTimestamp=0))  # SubnetEVM 0, the rest missing
        rpc = h.url + f"/ext/bc/{id_to_str(cid)}/rpc"
        assert call(rpc, "eth_getChainConfig") == {
            **chain_config(subnetEVMTimestamp=0, durangoTimestamp=LOCAL, etnaTimestamp=LOCAL, graniteTimestamp=LOCAL,
                           heliconTimestamp=UNSCHEDULED), "upgrades": {}}
        assert call(rpc, "eth_getActiveRulesAt", [LOCAL - 1]) == {
            "ethRules": eth_rules(False, False), "avalancheRules": avalanche_rules("SubnetEVM"), "precompiles": {}}
        assert call(rpc, "eth_getActiveRulesAt", [LOCAL]) == {
            "ethRules": eth_rules(True, True), "avalancheRules": avalanche_rules("SubnetEVM", "Durango", "Etna", "Granite"),
            "precompiles": {}}
        # the blocks a node builds now run Cancun
        assert deploy(rpc, TSTORE)[:2] == (1, 53_180)
        assert call(rpc, "eth_getActiveRulesAt")["avalancheRules"] == avalanche_rules("SubnetEVM", "Durango", "Etna",
                                                                                      "Granite")


def test_network_upgrade_overrides_in_upgrade_json(tmp_path):
    chains = tmp_path / "chains"
    chains.mkdir()
    config = NodeConfig(http_port=0, data_dir=tmp_path / "data", clock_mode="virtual", chain_config_dir=chains)
    with Node.start_in_thread(config) as h:
        t0 = advance(h, 0)
        later = {"durangoTimestamp": t0 + 100, "etnaTimestamp": t0 + 100, "graniteTimestamp": t0 + 200}
        _, chain_id = create_l1(h, genesis(**later))
        cid = id_to_str(chain_id)
        assert deploy(h.url + f"/ext/bc/{cid}/rpc", PUSH0_RETURN)[0] == 0
        t1 = advance(h, 10)

    # Granite moved later, Fortuna scheduled, with a precompile upgrade beside them
    overrides = {"fortunaTimestamp": t0 + 150, "graniteTimestamp": t0 + 300}
    minter = {"contractNativeMinterConfig": {"blockTimestamp": t0 + 120, "adminAddresses": [EWOQ.address.lower()]}}
    (chains / cid).mkdir()
    (chains / cid / "upgrade.json").write_text(json.dumps({"networkUpgradeOverrides": overrides,
                                                           "precompileUpgrades": [minter]}))
    with Node.start_in_thread(config.with_(start_time_ms=t1 * 1000)) as h:
        rpc = h.url + f"/ext/bc/{cid}/rpc"
        assert call(rpc, "eth_getChainConfig") == {
            **chain_config(subnetEVMTimestamp=0, durangoTimestamp=t0 + 100, etnaTimestamp=t0 + 100,
                           fortunaTimestamp=t0 + 150, graniteTimestamp=t0 + 300, heliconTimestamp=UNSCHEDULED),
            "upgrades": {"networkUpgradeOverrides": overrides, "precompileUpgrades": [minter]}}
        assert call(rpc, "eth_getActiveRulesAt", [t0 + 299]) == {
            "ethRules": eth_rules(True, True), "avalancheRules": avalanche_rules("SubnetEVM", "Durango", "Etna",
                                                                                 "Fortuna"),
            "precompiles": {"contractNativeMinterConfig": {"timestamp": t0 + 120}}}
        assert call(rpc, "eth_getActiveRulesAt", [t0 + 300])["avalancheRules"] == avalanche_rules(
            "SubnetEVM", "Durango", "Etna", "Fortuna", "Granite")
        assert call(rpc, "eth_getActiveRulesAt", [t0 + 149])["avalancheRules"] == avalanche_rules(
            "SubnetEVM", "Durango", "Etna")
        advance(h, 200 - 10)  # past the genesis's Granite, before the new one: still a block gas cost
        assert [deploy(rpc, PUSH0_RETURN)[0] for _ in range(2)] == [1, 1]
        assert deploy(rpc, PUSH0_RETURN)[2] > 0
        advance(h, 100)
        assert deploy(rpc, PUSH0_RETURN)[2] == 0
        t2 = advance(h, 1)

    # moving Fortuna, passed by now, stops the chain; so does a time before the network's default
    for upgrade, reason in (
            ({"networkUpgradeOverrides": {**overrides, "fortunaTimestamp": t0 + 250}, "precompileUpgrades": [minter]},
             f"mismatching Fortuna fork block timestamp in database (have timestamp {t0 + 150}, want timestamp "
             f"{t0 + 250}, rewindto timestamp {t0 + 149})"),
            ({"networkUpgradeOverrides": {"etnaTimestamp": 5}},
             "failed to verify genesis: invalid network upgrades: etna fork block timestamp is invalid: provided "
             f"timestamp must be greater than or equal to the default timestamp: provided timestamp 5, default "
             f"timestamp {LOCAL}")):
        (chains / cid / "upgrade.json").write_text(json.dumps(upgrade))
        with Node.start_in_thread(config.with_(start_time_ms=t2 * 1000)) as h:
            assert {id_to_str(k): v for k, v in h.node.chain_manager.failed.items()} == {cid: reason}
