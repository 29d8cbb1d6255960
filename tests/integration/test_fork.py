"""A fork of a live network (`--fork-url`): a second simnode in the same test plays the upstream.

The fork answers what the upstream answers at the fork point — C-Chain balances, code, storage,
eth_call, blocks, receipts and logs up to the fork block; the P-Chain's validators, delegators,
subnets, L1 and its validators, balances; X-Chain assets, balances and UTXOs; shared memory —
with the forked validators' BLS keys the ones simnode derives from the seed. Txs on the fork
change only the fork; its first block's parent is the upstream's fork block; an upstream holder's
ERC-20 moves by impersonation; a Warp message sent on the forked C-Chain is signed by the fork's
validators and verified there; the P-Chain goes on on the fork's clock.

One upstream and one fork serve the module; tests that change the fork revert a snapshot after.
"""

from __future__ import annotations

import hashlib

import pytest
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_account import Account
from eth_utils import to_checksum_address

from simnode.config import NodeConfig
from simnode.crypto import bls
from simnode.formats import format_address, id_from_str, id_to_str
from simnode.node import Node
from simnode.vms.evm import predicates
from simnode.warp.keystore import derived_secret_key
from simnode.warp.message import parse_signed_message, parse_unsigned_message

from .fork_upstream import erc20_balance, erc20_transfer_data, start_upstream
from .rpc import RPCFailure, call

GWEI = 10**9
WARP = "0x0200000000000000000000000000000000000005"
SEND_WARP_MESSAGE_TOPIC = "0x56600c567728a800c0aa927500f831cb451df66a7af570eb4df4dfbf4674887d"
# calls getVerifiedWarpMessage(0) and logs what it returns (test_warp_precompile.py's reader)
READER = "0x00000000000000000000000000000000000000a1"
READER_CODE = ("0x636f82535060e01b5f525f5f60245f5f730200000000000000000000000000000000000005"
               "5af1503d5f5f3e3d5fa000")
FORK_SEED = 5


@pytest.fixture(scope="module")
def upstream():
    up = start_upstream()
    yield up
    up.handle.stop()


@pytest.fixture(scope="module")
def fork(upstream):
    with Node.start_in_thread(NodeConfig(http_port=0, ephemeral=True, clock_mode="virtual", seed=FORK_SEED,
                                         fork_url=upstream.c, log_level="WARN")) as handle:
        yield handle


@pytest.fixture()
def clean(fork):
    """The fork as the module's tests found it, again after the test."""
    sid = call(fork.url + "/ext/simnode", "simnode.snapshot", {})["id"]
    yield fork
    call(fork.url + "/ext/simnode", "simnode.revert", {"id": sid})


def both(upstream, fork, path: str, method: str, params=None):
    return call(upstream.url + path, method, params), call(fork.url + path, method, params)


def _send(rpc: str, key: str, tx: dict, chain_id: int) -> dict:
    account = Account.from_key(key)
    full = {"chainId": chain_id, "nonce": int(call(rpc, "eth_getTransactionCount", [account.address, "pending"]), 16),
            "maxFeePerGas": 200 * GWEI, "maxPriorityFeePerGas": GWEI, "value": 0, "gas": 200_000, **tx,
            "to": to_checksum_address(tx["to"])}
    h = call(rpc, "eth_sendRawTransaction", ["0x" + account.sign_transaction(full).raw_transaction.hex()])
    receipt = call(rpc, "eth_getTransactionReceipt", [h])
    assert receipt is not None
    return receipt


# ---------------------------------------------------------------------------------------- identity


def test_the_fork_takes_the_upstreams_identity(upstream, fork):
    for path, method, params in [("/ext/info", "info.getNetworkID", {}), ("/ext/info", "info.getNetworkName", {}),
                                 ("/ext/info", "info.getBlockchainID", {"alias": "X"}),
                                 ("/ext/info", "info.getBlockchainID", {"alias": "C"}),
                                 ("/ext/bc/X", "avm.getAssetDescription", {"assetID": "AVAX"}),
                                 ("/ext/bc/P", "platform.getStakingAssetID", {})]:
        theirs, ours = both(upstream, fork, path, method, params)
        assert ours == theirs, method
    assert both(upstream, fork, "/ext/bc/C/rpc", "eth_chainId")[1] == hex(43112)
    head = int(call(upstream.c, "eth_blockNumber"), 16)
    assert fork.node.fork.identity.block_number == head  # the upstream's last accepted block by default


# ---------------------------------------------------------------------------------------- C-Chain


def test_c_chain_state_is_the_upstreams_at_the_fork_block(upstream, fork):
    f = fork.url + "/ext/bc/C/rpc"
    n = hex(fork.node.fork.identity.block_number)
    alice, bob = upstream.account("alice").c_address, upstream.account("bob").c_address
    token = upstream.token
    for method, params in [("eth_getBalance", [alice, "latest"]), ("eth_getBalance", [bob, n]),
                           ("eth_getTransactionCount", [alice, "latest"]), ("eth_getCode", [token, "latest"]),
                           ("eth_getStorageAt", [token, "0x2", "latest"]),
                           ("eth_getBalance", ["0x" + "77" * 20, "latest"])]:
        assert call(f, method, params) == call(upstream.c, method, params), method
    assert call(f, "eth_getCode", [token, "latest"]) != "0x"
    assert erc20_balance(f, token, bob) == erc20_balance(upstream.c, token, bob) == 2500 * 10**18
    assert erc20_balance(f, token, alice) == (1_000_000 - 2500) * 10**18
    # blocks, txs, receipts and logs up to the fork block are the upstream's
    for tag in (n, "0x1", "earliest", "latest"):
        assert call(f, "eth_getBlockByNumber", [tag, True]) == call(upstream.c, "eth_getBlockByNumber", [tag, True])
    block = call(upstream.c, "eth_getBlockByNumber", ["0x2", False])
    assert call(f, "eth_getBlockByHash", [block["hash"], False]) == block
    tx_hash = block["transactions"][0]
    for method in ("eth_getTransactionByHash", "eth_getTransactionReceipt", "debug_traceTransaction"):
        assert call(f, method, [tx_hash]) == call(upstream.c, method, [tx_hash])
    logs = {"fromBlock": "0x0", "toBlock": n, "address": token}
    assert call(f, "eth_getLogs", [logs]) == call(upstream.c, "eth_getLogs", [logs])
    assert len(call(f, "eth_getLogs", [logs])) == 2  # the mint and the transfer to bob
    # state before the fork block is the upstream's at that block
    assert call(f, "eth_getBalance", [alice, "0x1"]) == call(upstream.c, "eth_getBalance", [alice, "0x1"])
    with pytest.raises(RPCFailure, match="cannot query unfinalized data"):  # as coreth: past the head
        call(f, "eth_getBlockByNumber", [hex(int(n, 16) + 1), False])


def test_txs_change_only_the_fork_and_its_first_block_follows_the_fork_block(upstream, clean):
    fork = clean
    f = fork.url + "/ext/bc/C/rpc"
    n = fork.node.fork.identity.block_number
    alice, carol = upstream.account("alice"), upstream.account("carol")
    token = upstream.token
    receipt = _send(f, alice.key_hex, {"to": token, "data": erc20_transfer_data(carol.c_address, 7 * 10**18)}, 43112)
    assert receipt["status"] == "0x1" and int(receipt["blockNumber"], 16) == n + 1
    first = call(f, "eth_getBlockByNumber", [hex(n + 1), False])
    assert first["parentHash"] == call(upstream.c, "eth_getBlockByNumber", [hex(n), False])["hash"]
    assert erc20_balance(f, token, carol.c_address) == 7 * 10**18
    assert erc20_balance(upstream.c, token, carol.c_address) == 0
    assert int(call(upstream.c, "eth_blockNumber"), 16) == n
    # the fee rules continue from the upstream's header: the base fee follows from its fee state
    assert int(first["baseFeePerGas"], 16) >= 1
    # logs across the fork block join the upstream's and the fork's
    logs = call(f, "eth_getLogs", [{"fromBlock": "0x0", "toBlock": "latest", "address": token}])
    assert len(logs) == 3 and logs[-1]["transactionHash"] == receipt["transactionHash"]
    # BLOCKHASH of an upstream block, through eth_call of a contract's code: BLOCKHASH(n) == upstream's
    call(f, "anvil_setCode", ["0x" + "bb" * 20, "0x" + "6000" + "35" + "40" + "6000" + "52" + "6020" + "6000" + "f3"])
    got = call(f, "eth_call", [{"to": "0x" + "bb" * 20, "data": "0x" + (n - 1).to_bytes(32, "big").hex()}, "latest"])
    assert got == call(upstream.c, "eth_getBlockByNumber", [hex(n - 1), False])["hash"]


def test_a_contract_deployed_on_the_fork_asks_the_upstream_nothing_more(upstream, clean):
    from .fork_upstream import TOKEN
    f = clean.url + "/ext/bc/C/rpc"
    alice, bob = upstream.account("alice"), upstream.account("bob")
    ctor = TOKEN["bytecode"] + abi_encode(["string", "string", "uint256"], ["Local", "LCL", 10**24]).hex()
    account = Account.from_key(alice.key_hex)
    tx = {"chainId": 43112, "nonce": int(call(f, "eth_getTransactionCount", [account.address, "pending"]), 16),
          "maxFeePerGas": 200 * GWEI, "maxPriorityFeePerGas": GWEI, "value": 0, "gas": 2_000_000, "data": ctor}
    h = call(f, "eth_sendRawTransaction", ["0x" + account.sign_transaction(tx).raw_transaction.hex()])
    local = call(f, "eth_getTransactionReceipt", [h])["contractAddress"]
    requests = clean.node.fork.upstream.requests
    _send(f, alice.key_hex, {"to": local, "data": erc20_transfer_data(bob.c_address, 5)}, 43112)
    assert erc20_balance(f, local, bob.c_address) == 5
    assert erc20_balance(f, local, "0x" + "99" * 20) == 0
    assert clean.node.fork.upstream.requests == requests  # its storage is the fork's alone


def test_impersonation_moves_an_upstream_holders_erc20(upstream, clean):
    f = clean.url + "/ext/bc/C/rpc"
    bob, carol = upstream.account("bob").c_address, upstream.account("carol").c_address
    token = upstream.token
    with pytest.raises(RPCFailure, match="unknown account"):
        call(f, "eth_sendTransaction", [{"from": bob, "to": token, "data": erc20_transfer_data(carol, 1)}])
    call(f, "anvil_impersonateAccount", [bob])
    h = call(f, "eth_sendTransaction", [{"from": bob, "to": token, "data": erc20_transfer_data(carol, 1000 * 10**18)}])
    assert call(f, "eth_getTransactionReceipt", [h])["status"] == "0x1"
    assert erc20_balance(f, token, bob) == 1500 * 10**18
    assert erc20_balance(f, token, carol) == 1000 * 10**18
    assert erc20_balance(upstream.c, token, bob) == 2500 * 10**18


def test_a_warp_message_sent_on_the_fork_is_signed_and_verified_by_the_forks_validators(upstream, clean):
    fork = clean
    f = fork.url + "/ext/bc/C/rpc"
    alice = upstream.account("alice")
    call(f, "anvil_setCode", [READER, READER_CODE])
    data = "0x" + (bytes.fromhex("ee5b48eb") + abi_encode(["bytes"], [b"forked warp"])).hex()
    receipt = _send(f, alice.key_hex, {"to": WARP, "data": data}, 43112)
    (log,) = receipt["logs"]
    assert log["topics"][0] == SEND_WARP_MESSAGE_TOPIC
    (raw,) = abi_decode(["bytes"], bytes.fromhex(log["data"][2:]))
    unsigned = parse_unsigned_message(raw)
    assert unsigned.network_id == 12345 and unsigned.source_chain_id == fork.node.genesis.c_chain_id
    signed = bytes.fromhex(call(f, "warp_getMessageAggregateSignature", [id_to_str(unsigned.id), 67, ""])[2:])
    message = parse_signed_message(signed)
    # the signers are the fork's primary validators, with the keys the fork's P-Chain reports
    validators = call(fork.url + "/ext/bc/P", "platform.getValidatorsAt", {"height": "proposed"})
    reported = {bytes.fromhex(v["publicKey"][2:]) for v in validators.values() if v["publicKey"]}
    assert reported == {bls.public_key(derived_secret_key(FORK_SEED, n)) for n in
                        fork.node.chains[bytes(32)].state.vset[bytes(32)]}
    assert message.signature.num_signers() >= 1
    keys = ["0x" + c.hex() for c in predicates.encode(signed)]
    delivered = _send(f, alice.key_hex, {"to": READER, "data": "0x", "gas": 1_000_000, "type": 2,
                                          "accessList": [{"address": WARP, "storageKeys": keys}]}, 43112)
    (out,) = delivered["logs"]
    (got, valid) = abi_decode(["(bytes32,address,bytes)", "bool"], bytes.fromhex(out["data"][2:]))
    assert valid is True and got[2] == b"forked warp"


def test_the_upstreams_l1_runs_forked(upstream, clean):
    fork = clean
    chain = upstream.saved["chain"]
    u, f = f"{upstream.url}/ext/bc/{chain}/rpc", f"{fork.url}/ext/bc/{chain}/rpc"
    ewoq = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"
    for method, params in [("eth_chainId", []), ("eth_blockNumber", []), ("eth_getBalance", [ewoq, "latest"]),
                           ("eth_getStorageAt", [ewoq, "0x1", "latest"]), ("eth_getBlockByNumber", ["latest", False])]:
        assert call(f, method, params) == call(u, method, params), method
    assert call(f, "eth_getStorageAt", [ewoq, "0x1", "latest"]) == "0x" + "00" * 31 + "02"
    head = int(call(u, "eth_blockNumber"), 16)
    key = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
    receipt = _send(f, key, {"to": "0x" + "33" * 20, "value": 5, "gas": 21000}, 99991)
    assert int(receipt["blockNumber"], 16) == head + 1
    block = call(f, "eth_getBlockByNumber", [receipt["blockNumber"], False])
    assert block["parentHash"] == call(u, "eth_getBlockByNumber", [hex(head), False])["hash"]
    assert call(f, "eth_getBalance", ["0x" + "33" * 20, "latest"]) == "0x5"
    assert call(u, "eth_getBalance", ["0x" + "33" * 20, "latest"]) == "0x0"


# ---------------------------------------------------------------------------------------- P-Chain


def _without_keys(validators: list[dict]) -> list[dict]:
    return [{k: v for k, v in d.items() if k not in ("signer", "publicKey")} for d in validators]


def test_p_chain_is_the_upstreams_with_keys_the_fork_derives(upstream, fork):
    P = "/ext/bc/P"
    for method, params in [("platform.getHeight", {}), ("platform.getTimestamp", {}),
                           ("platform.getCurrentSupply", {}), ("platform.getSubnets", {}),
                           ("platform.getBlockchains", {}), ("platform.getTotalStake", {}),
                           ("platform.getFeeState", {}), ("platform.getValidatorFeeState", {}),
                           ("platform.getBalance", {"addresses": [upstream.account("alice").p_address]})]:
        theirs, ours = both(upstream, fork, P, method, params)
        assert ours == theirs, method
    theirs, ours = both(upstream, fork, P, "platform.getCurrentValidators", {})
    assert _without_keys(ours["validators"]) == _without_keys(theirs["validators"])
    assert len(ours["validators"]) == 6
    for v in ours["validators"]:
        node_id = fork.node.chains[bytes(32)].state.stakers[id_from_str(v["txID"])].node_id
        secret = derived_secret_key(FORK_SEED, node_id)
        assert v["signer"]["publicKey"] == "0x" + bls.public_key(secret).hex()
        assert bls.verify_possession(bls.public_key(secret), bytes.fromhex(v["signer"]["proofOfPossession"][2:]))
    added = next(v for v in theirs["validators"] if v["delegatorCount"] == "1")
    theirs, ours = both(upstream, fork, P, "platform.getCurrentValidators", {"nodeIDs": [added["nodeID"]]})
    assert _without_keys(ours["validators"]) == _without_keys(theirs["validators"])
    assert len(ours["validators"][0]["delegators"]) == 1
    subnet = upstream.saved["subnet"]
    for method, params in [("platform.getSubnet", {"subnetID": subnet}),
                           ("platform.validates", {"subnetID": subnet}),
                           ("platform.getTotalStake", {"subnetID": subnet})]:
        theirs, ours = both(upstream, fork, P, method, params)
        assert ours == theirs, method
    theirs, ours = both(upstream, fork, P, "platform.getCurrentValidators", {"subnetID": subnet})
    assert _without_keys(ours["validators"]) == _without_keys(theirs["validators"])
    assert sorted(int(v["weight"]) for v in ours["validators"]) == [50, 100]
    height = call(fork.url + P, "platform.getHeight")["height"]
    theirs, ours = both(upstream, fork, P, "platform.getValidatorsAt", {"height": height, "subnetID": subnet})
    assert {k: v["weight"] for k, v in ours.items()} == {k: v["weight"] for k, v in theirs.items()}
    # the upstream's history is served as the upstream serves it
    for h in ("0", height):
        theirs, ours = both(upstream, fork, P, "platform.getBlockByHeight", {"height": h, "encoding": "hex"})
        assert ours == theirs


def test_the_forked_p_chain_runs_on_the_forks_clock(upstream, clean):
    fork = clean
    P = fork.url + "/ext/bc/P"
    delegator_end = min(int(d["endTime"]) for v in call(P, "platform.getCurrentValidators", {})["validators"]
                        if v["delegatorCount"] != "0"
                        for d in call(P, "platform.getCurrentValidators", {"nodeIDs": [v["nodeID"]]})
                        ["validators"][0]["delegators"])
    before = int(call(P, "platform.getBalance", {"addresses": [upstream.account("alice").p_address]})["balance"])
    now = int(call(fork.url + "/ext/simnode", "simnode.getTime")["timestamp"])
    call(fork.url + "/ext/simnode", "simnode.advanceTime", {"seconds": str(delegator_end - now + 1)})
    after = int(call(P, "platform.getBalance", {"addresses": [upstream.account("alice").p_address]})["balance"])
    assert after >= before + 30 * 10**9  # the delegator's stake came back to alice (plus its reward)
    total = sum(int(v["delegatorCount"]) for v in call(P, "platform.getCurrentValidators", {})["validators"])
    assert total == 0
    assert int(call(upstream.url + "/ext/bc/P", "platform.getBalance",
                    {"addresses": [upstream.account("alice").p_address]})["balance"]) == before


# ---------------------------------------------------------------------------------------- X-Chain


def test_x_chain_assets_balances_and_utxos_come_when_first_touched(upstream, fork):
    X = "/ext/bc/X"
    alice, bob = upstream.account("alice").x_address, upstream.account("bob").x_address
    for method, params in [("avm.getAllBalances", {"address": alice}), ("avm.getAllBalances", {"address": bob}),
                           ("avm.getBalance", {"address": bob, "assetID": upstream.saved["asset"]}),
                           ("avm.getUTXOs", {"addresses": [alice, bob], "limit": 100}),
                           ("avm.getAssetDescription", {"assetID": upstream.saved["asset"]}),
                           ("avm.getTx", {"txID": upstream.saved["asset"]})]:
        theirs, ours = both(upstream, fork, X, method, params)
        assert ours == theirs, method
    assert both(upstream, fork, X, "avm.getBalance", {"address": bob, "assetID": upstream.saved["asset"]})[1][
        "balance"] == "1234"


def test_x_transfers_on_the_fork_spend_upstream_utxos(upstream, clean):
    from simnode.scenario.replay import run_on
    fork = clean
    X = "/ext/bc/X"
    carol = upstream.account("carol").x_address
    accounts = {k: upstream.account(k) for k in ("alice", "bob", "carol")}
    run_on(fork, {"network": {"seed": 21}, "steps": [
        {"kind": "transfer", "chain": "X", "from": "bob", "to": "carol", "amount": 1000, "asset": upstream.saved["asset"]},
    ]}, extra_accounts=accounts, setup=False)
    assert call(fork.url + X, "avm.getBalance", {"address": carol, "assetID": upstream.saved["asset"]})["balance"] == "1000"
    assert call(upstream.url + X, "avm.getBalance", {"address": carol, "assetID": upstream.saved["asset"]})["balance"] == "0"


# ---------------------------------------------------------------------------------------- shared memory


def test_shared_memory_waiting_upstream_is_imported_on_the_fork(upstream, clean):
    from simnode.scenario.replay import run_on
    fork = clean
    alice = upstream.account("alice")
    waiting = call(upstream.url + "/ext/bc/C/avax", "avax.getUTXOs",
                   {"addresses": [format_address("C", "local", alice.short_address)], "sourceChain": "X"})
    assert call(fork.url + "/ext/bc/C/avax", "avax.getUTXOs",
                {"addresses": [format_address("C", "local", alice.short_address)], "sourceChain": "X"}) == waiting
    assert waiting["numFetched"] == "1"
    theirs, ours = both(upstream, fork, "/ext/bc/P", "platform.getUTXOs",
                        {"addresses": [alice.p_address], "sourceChain": "X"})
    assert ours == theirs and ours["numFetched"] == "1"
    before = int(call(fork.url + "/ext/bc/C/rpc", "eth_getBalance", [alice.c_address, "latest"]), 16)
    run_on(fork, {"network": {"seed": 21}, "steps": [
        {"kind": "import", "chain": "C", "from_chain": "X", "to": "alice"},
    ]}, extra_accounts={"alice": alice}, setup=False)
    after = int(call(fork.url + "/ext/bc/C/rpc", "eth_getBalance", [alice.c_address, "latest"]), 16)
    assert after > before


# ---------------------------------------------------------------------------------------- dev controls


def test_fund_address_credits_x_p_and_c_addresses(upstream, clean):
    fork = clean
    S = fork.url + "/ext/simnode"
    who = hashlib.sha256(b"fork-fund").digest()[:20]
    x, p = format_address("X", "local", who), format_address("P", "local", who)
    got = call(S, "simnode.fundAddress", {"address": x, "amount": "5000000000"})
    assert got["outputIndex"] == 0
    assert call(fork.url + "/ext/bc/X", "avm.getBalance", {"address": x, "assetID": "AVAX"})["balance"] == "5000000000"
    call(S, "simnode.fundAddress", {"address": p, "amount": "7000000000"})
    assert call(fork.url + "/ext/bc/P", "platform.getBalance", {"addresses": [p]})["balance"] == "7000000000"
    eth = "0x" + who.hex()
    assert call(S, "simnode.fundAddress", {"address": eth, "amount": "10"}) == {"balance": "10"}
    assert call(fork.url + "/ext/bc/C/rpc", "eth_getBalance", [eth, "latest"]) == "0xa"
    with pytest.raises(RPCFailure, match="not an X- or P-Chain address"):
        call(S, "simnode.fundAddress", {"address": format_address("X", "fuji", who), "amount": "1"})


def test_the_data_api_says_the_history_before_the_fork_is_the_upstreams(upstream, fork):
    import json
    import urllib.request
    with urllib.request.urlopen(fork.url + "/v1/chains") as resp:
        chains = json.loads(resp.read())["chains"]
    c = next(ch for ch in chains if ch["chainId"] == "43112")
    n = fork.node.fork.identity.block_number
    assert f"a fork of {upstream.c} at block {n}" in c["description"]
    assert f"indexes blocks {n + 1} on" in c["description"]
