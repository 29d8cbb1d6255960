"""Scenario ABIs: a function the ABI lacks is an AbiError naming the functions it has."""

from __future__ import annotations

import pytest

from simnode.scenario.abi import AbiError, find_function

TRANSFER = {"type": "function", "name": "transfer",
            "inputs": [{"type": "address"}, {"type": "uint256"}], "outputs": [{"type": "bool"}]}


def test_a_missing_function_lists_the_abis_functions():
    with pytest.raises(AbiError, match=r"no function 'mint' \(has: transfer\)"):
        find_function("mint", [TRANSFER, {"type": "event", "name": "Transfer"}], 1)


def test_a_nameless_function_entry_is_left_out_of_the_listing():
    # a hand-written ABI may hold a function entry without a name: the listing used to sort
    # None with the names (a TypeError, not the scenario's AbiError)
    abi = [TRANSFER, {"type": "function", "inputs": []}]
    with pytest.raises(AbiError, match=r"no function 'mint' \(has: transfer\)"):
        find_function("mint", abi, 0)
    with pytest.raises(AbiError, match=r"no function 'mint' \(has: \)"):
        find_function("mint", [{"type": "function", "inputs": []}], 0)
