"""Loading a genesis file: AvalancheGo's genesis JSON → the initial state of the X-, P- and C-Chain.

Mirrors avalanchego ``genesis/genesis.go`` (FromConfig) and ``genesis/config.go``
(getRecentStartTime, GetConfig); each chain's part is built by its own module (avm, platform,
cchain). Pure: no wall-clock reads; a caller that wants the local network's start time re-based to
"now" passes "now" in.
"""

from dataclasses import dataclass, replace
from pathlib import Path

from simnode.codec.avax import UTXO
from simnode.codec.errors import CodecError
from simnode.codec.tables import new_p_registry, new_x_registry
from simnode.formats.address import FUJI_ID, LOCAL_ID, MAINNET_ID, hrp_for_network, network_name

from .avm import build_x_genesis
from .cchain import CChainGenesis, parse_c_chain_genesis
from .config import GenesisConfig, read_genesis_config
from .fields import MAX_UINT64, GenesisError
from .platform import GenesisChain, GenesisValidator, PGenesisUTXO, build_p_genesis

# AvalancheGo re-bases the local network's start time forward in steps of 9×30 days.
LOCAL_START_TIME_PERIOD = 9 * 30 * 24 * 3600

GENESIS_DATA_DIRS = (
    Path(__file__).resolve().parent.parent / "genesis_data",  # shipped inside the package (wheel installs)
    Path(__file__).resolve().parent.parent.parent / "genesis",  # the repository's top-level folder
)
NETWORK_GENESIS_FILES = {LOCAL_ID: "genesis_local.json", FUJI_ID: "genesis_fuji.json"}


@dataclass(frozen=True, slots=True)
class Genesis:
    config: GenesisConfig
    network_id: int
    hrp: str
    network_name: str
    start_time: int  # the P-Chain genesis timestamp (after any re-basing)
    avax_asset_id: bytes
    avax_asset_tx_bytes: bytes  # the CreateAssetTx whose sha256 is the AVAX asset ID
    x_chain_id: bytes
    c_chain_id: bytes
    x_genesis_bytes: bytes
    x_utxos: tuple[UTXO, ...]
    p_utxos: tuple[PGenesisUTXO, ...]
    validators: tuple[GenesisValidator, ...]  # in P genesis order
    chains: tuple[GenesisChain, ...]  # X, then C
    initial_supply: int
    message: str
    p_genesis_bytes: bytes
    p_genesis_block_id: bytes
    c_chain_genesis: CChainGenesis


def rebased_start_time(genesis_start: int, now: int, period: int = LOCAL_START_TIME_PERIOD) -> int:
    """AvalancheGo's getRecentStartTime: move the start forward by whole periods while that stays ≤ now."""
    if now < genesis_start + period:
        return genesis_start
    return genesis_start + (now - genesis_start) // period * period


def build_genesis(config: GenesisConfig, start_time: int | None = None) -> Genesis:
    """Derive every chain's genesis from a config; `start_time` overrides the file's (e.g. a re-based one)."""
    genesis_start = config.start_time if start_time is None else start_time
    initial_supply = config.initial_supply
    if initial_supply > MAX_UINT64:
        raise GenesisError("unable to calculate the initial supply: overflow")
    if initial_supply == 0:
        raise GenesisError("initial supply must be > 0")
    if not config.initial_stakers:
        raise GenesisError("initial stakers must be > 0")
    if not config.c_chain_genesis:
        raise GenesisError("C-Chain genesis cannot be empty")
    allocated = {a.avax_addr for a in config.allocations}
    for address in config.initial_staked_funds:
        if address not in allocated:
            raise GenesisError("no allocation to stake")

    x_reg = new_x_registry()
    p_reg = new_p_registry()
    try:
        x_genesis_bytes, asset_tx_bytes, avax_asset_id, x_outs = build_x_genesis(config, x_reg)
        x_utxos = tuple(UTXO(avax_asset_id, i, avax_asset_id, out) for i, out in enumerate(x_outs))
        p_chain = build_p_genesis(config, genesis_start, avax_asset_id, x_genesis_bytes, initial_supply, p_reg)
    except CodecError as e:
        raise GenesisError(f"genesis does not encode: {e}") from None

    return Genesis(
        config=config,
        network_id=config.network_id,
        hrp=hrp_for_network(config.network_id),
        network_name=network_name(config.network_id),
        start_time=genesis_start,
        avax_asset_id=avax_asset_id,
        avax_asset_tx_bytes=asset_tx_bytes,
        x_chain_id=p_chain.chains[0].chain_id,
        c_chain_id=p_chain.chains[1].chain_id,
        x_genesis_bytes=x_genesis_bytes,
        x_utxos=x_utxos,
        p_utxos=p_chain.utxos,
        validators=p_chain.validators,
        chains=p_chain.chains,
        initial_supply=initial_supply,
        message=config.message,
        p_genesis_bytes=p_chain.genesis_bytes,
        p_genesis_block_id=p_chain.genesis_block_id,
        c_chain_genesis=parse_c_chain_genesis(config.c_chain_genesis),
    )


def load_genesis(path: Path | str, *, start_time: int | None = None) -> Genesis:
    """Load a genesis file as is (a custom network's start time is never re-based by AvalancheGo)."""
    return build_genesis(read_genesis_config(path), start_time)


def network_genesis_path(network_id: int) -> Path:
    """The shipped genesis file of a network; any other network ID uses the local one, as AvalancheGo does."""
    if network_id == MAINNET_ID:
        raise GenesisError("no mainnet genesis file is shipped with simnode")
    file_name = NETWORK_GENESIS_FILES.get(network_id, NETWORK_GENESIS_FILES[LOCAL_ID])
    for directory in GENESIS_DATA_DIRS:
        candidate = directory / file_name
        if candidate.is_file():
            return candidate
    raise GenesisError(f"genesis file {file_name} not found in {', '.join(str(d) for d in GENESIS_DATA_DIRS)}")


def load_network_genesis(network_id: int, *, now: int | None = None) -> Genesis:
    """The genesis AvalancheGo uses for `network_id` (genesis.GetConfig).

    Fuji (5) uses its own file unchanged. The local network (12345), and any other network ID with
    the local file's content, has its start time re-based to ``now`` when ``now`` is given.
    """
    config = read_genesis_config(network_genesis_path(network_id))
    if network_id == FUJI_ID:
        return build_genesis(config)
    config = replace(config, network_id=network_id)
    start_time = None if now is None else rebased_start_time(config.start_time, now)
    return build_genesis(config, start_time)
