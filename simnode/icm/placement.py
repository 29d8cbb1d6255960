"""The messenger on every EVM chain without user action: a state change at the start of block 1.

Block 0 must hash as the real chain's genesis (the C-Chain's genesis hash is a known-answer test), so
the messenger cannot be in block 0's state. Instead every EVM chain (the C-Chain and each L1) applies
this change before block 1's first tx, as coreth and subnet-evm apply a precompile activation: the
messenger's runtime code at 0x253b…5fcf with nonce 1 and both reentrancy guards at NOT_ENTERED (1),
and its keyless deployer at nonce 1, which is what the real Nick's-method deployment leaves. A chain
whose genesis already has code at that address (avalanche-cli puts the messenger in an L1's genesis
alloc) is left alone. The change is a pure function of the state, so replays give the same block 1.
"""

from __future__ import annotations

from typing import Any

from .artifacts import MESSENGER_DEPLOYER_ADDRESS, MESSENGER_NOT_ENTERED_SLOTS, load_artifact
from .messages import MESSENGER_ADDRESS

PLACEMENT_BLOCK = 1
"""The block whose state change places the messenger (block 0 stays the real genesis)."""


def place_messenger(state: Any) -> bool:
    """Place the messenger in `state` (a py-evm state before block 1's first tx) unless code is
    already at its address; True when it placed it."""
    if state.get_code(MESSENGER_ADDRESS):
        return False
    state.set_code(MESSENGER_ADDRESS, load_artifact("TeleporterMessenger").runtime_code)
    state.set_nonce(MESSENGER_ADDRESS, 1)
    for slot in MESSENGER_NOT_ENTERED_SLOTS:
        state.set_storage(MESSENGER_ADDRESS, slot, 1)
    state.set_nonce(MESSENGER_DEPLOYER_ADDRESS, max(1, state.get_nonce(MESSENGER_DEPLOYER_ADDRESS)))
    return True
