"""What the X- and P-Chain genesis txs share: an empty avax.BaseTx and a single-address owner."""

from simnode.codec.packer import Writer
from simnode.codec.secp256k1fx import OutputOwners
from simnode.formats.ids import ZERO_ID


def single_owner(address: bytes) -> OutputOwners:
    return OutputOwners(locktime=0, threshold=1, addresses=(address,))


def write_empty_base_tx(w: Writer, network_id: int, memo: bytes = b"") -> None:
    # avax.BaseTx with the P-/X-Chain ID left empty, no outputs and no inputs, as genesis builds it.
    w.u32(network_id)
    w.fixed_bytes(ZERO_ID, 32)
    w.u32(0)
    w.u32(0)
    w.bytes_u32(memo)
