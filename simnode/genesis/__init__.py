"""AvalancheGo's genesis JSON → the initial state of the X-, P- and C-Chain.

Mirrors avalanchego ``genesis/genesis.go`` (FromConfig, splitAllocations), ``genesis/config.go``
(getRecentStartTime), ``vms/avm/genesis.go`` and ``vms/platformvm/genesis/genesis.go`` (New), so the
AVAX asset ID, the X-/C-Chain IDs, the genesis UTXOs, the genesis validator txs and the P-Chain
genesis bytes are the ones a real node derives from the same file.

`loader` loads a file and builds every chain's genesis from it: `config` reads the file (its fields
through `fields`), `avm` builds the X-Chain's, `platform` the P-Chain's, `cchain` reads the
C-Chain's; `signers` gives the genesis stakers the BLS keys simnode signs with.
"""

from .cchain import CChainAccount, CChainGenesis, parse_c_chain_genesis
from .config import (Allocation, BlsSigner, GenesisConfig, LockedAmount, Staker, parse_genesis_config,
                     read_genesis_config)
from .fields import GenesisError
from .loader import (
    GENESIS_DATA_DIRS,
    LOCAL_START_TIME_PERIOD,
    Genesis,
    build_genesis,
    load_genesis,
    load_network_genesis,
    network_genesis_path,
    rebased_start_time,
)
from .platform import GenesisChain, GenesisValidator, PGenesisUTXO
from .signers import StakerKeys, known_signer_secrets, staker_keys

__all__ = [
    "GENESIS_DATA_DIRS",
    "LOCAL_START_TIME_PERIOD",
    "Allocation",
    "BlsSigner",
    "CChainAccount",
    "CChainGenesis",
    "Genesis",
    "GenesisChain",
    "GenesisConfig",
    "GenesisError",
    "GenesisValidator",
    "LockedAmount",
    "PGenesisUTXO",
    "Staker",
    "StakerKeys",
    "build_genesis",
    "known_signer_secrets",
    "load_genesis",
    "load_network_genesis",
    "network_genesis_path",
    "parse_c_chain_genesis",
    "parse_genesis_config",
    "rebased_start_time",
    "read_genesis_config",
    "staker_keys",
]
