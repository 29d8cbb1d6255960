"""What the P-Chain's tx rules and state transitions read of the VM.

The verifiers (executor.py and its verify_*.py families), `apply` (effects.py) and the time-driven
transitions (time_transitions.py) sit below vm.py: they type the VM as this Protocol, which
`PlatformVM` satisfies, and never import vm.py.
"""

from __future__ import annotations

from typing import Protocol

from simnode.network import StakingParams

from .fees import FeeConfig, ValidatorFeeConfig
from .state import State


class PlatformContext(Protocol):
    network_id: int
    chain_id: bytes
    x_chain_id: bytes
    c_chain_id: bytes
    avax_asset_id: bytes
    staking: StakingParams
    fee_config: FeeConfig
    validator_fee_config: ValidatorFeeConfig
    state: State
