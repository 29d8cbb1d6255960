"""The error of the Warp library. Texts are AvalancheGo's (vms/platformvm/warp), because they
surface verbatim in the P-Chain's tx errors and in the aggregator's answers."""

from simnode.errors import Refused


class WarpError(Refused):
    """A Warp message or signature that does not verify (the bytes themselves decoded)."""
