"""A user's test file: only the simnode pytest plugin's fixtures, nothing imported from simnode."""


def test_web3_transfer_between_funded_accounts(simnode_web3, simnode_accounts):
    w3 = simnode_web3
    alice, bob = simnode_accounts.alice, simnode_accounts.bob
    assert w3.eth.get_balance(alice.c_address) == 1000 * 10**18
    before = w3.eth.get_balance(bob.c_address)
    tx = {
        "to": bob.c_address, "value": 10**18, "gas": 21000, "nonce": w3.eth.get_transaction_count(alice.c_address),
        "maxFeePerGas": 2 * w3.eth.gas_price, "maxPriorityFeePerGas": 0, "chainId": w3.eth.chain_id, "type": 2,
    }
    signed = w3.eth.account.sign_transaction(tx, alice.key_hex)
    receipt = w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(signed.raw_transaction))
    assert receipt.status == 1
    assert w3.eth.get_balance(bob.c_address) == before + 10**18


def test_scenario_steps_inside_a_test(simnode_scenario, simnode_accounts):
    result = simnode_scenario([
        {"kind": "transfer", "chain": "C", "from": "alice", "to": "carol", "amount": "2.5 AVAX"},
        {"kind": "expect_balance", "chain": "C", "account": "carol", "equals": "1002.5 AVAX"},
        {"kind": "advance_time", "by": "1d"},
        {"kind": "rpc", "endpoint": "simnode", "method": "simnode.getTime", "save": "t"},
    ])
    assert int(result.saved["t"]["timestamp"]) >= 86400


def test_time_travel_and_snapshots(simnode_node, simnode_urls):
    assert simnode_urls["C"].endswith("/ext/bc/C/rpc")
    t0 = simnode_node.now()
    snap = simnode_node.snapshot()
    simnode_node.mine(3)
    assert int(simnode_node.rpc("C", "eth_blockNumber", []), 16) >= 3
    simnode_node.revert(snap)
    assert int(simnode_node.rpc("C", "eth_blockNumber", []), 16) == 0
    assert simnode_node.advance_time("14d") == t0 + 14 * 86400


def test_x_and_p_accounts_are_funded(simnode_node, simnode_accounts):
    alice = simnode_accounts.alice
    x = simnode_node.rpc("X", "avm.getBalance", {"address": alice.x_address, "assetID": "AVAX"})
    p = simnode_node.rpc("P", "platform.getBalance", {"addresses": [alice.p_address]})
    assert int(x["balance"]) == 1000 * 10**9
    assert int(p["balance"]) == 5000 * 10**9
