"""secp256k1fx's credential check (Fx.VerifyCredentials), the one copy the X-Chain, the P-Chain
and the C-Chain's atomic txs share: the most security-critical rule of the three chains.

It raises VerifyError with AvalancheGo's texts; each chain's executor wraps it into its TxError
(with its own prefix) through `codec.errors.tx_errors`.
"""

from __future__ import annotations

from simnode.codec import Credential, OutputOwners, VerifyError
from simnode.crypto import CryptoError
from simnode.crypto.secp256k1 import recover_address
from simnode.formats import short_id_to_str


def verify_credentials(unsigned_hash: bytes, sig_indices: tuple[int, ...], cred: Credential,
                       owners: OutputOwners, now: int) -> None:
    """The signatures of `cred` spend an output of `owners` at time `now` (unix seconds)."""
    num_sigs = len(sig_indices)
    if owners.locktime > now:
        raise VerifyError("output is time locked")
    if owners.threshold < num_sigs:
        raise VerifyError("input has more signers than expected")
    if owners.threshold > num_sigs:
        raise VerifyError("input has less signers than expected")
    if num_sigs != len(cred.signatures):
        raise VerifyError("input expected a different number of signers than provided in the credential")
    addrs = owners.addresses
    for sig, index in zip(cred.signatures, sig_indices):
        if index >= len(addrs):
            raise VerifyError("input referenced a nonexistent address in the output")
        try:
            got = recover_address(unsigned_hash, sig)
        except CryptoError as exc:
            raise VerifyError(str(exc)) from None
        expected = addrs[index]
        if got != expected:
            raise VerifyError(f"wrong signature: expected signature from {short_id_to_str(expected)} "
                              f"but got from {short_id_to_str(got)}")
