"""Staking identities as AvalancheGo reads them: NodeIDs from certificates (known answers from
AvalancheGo's own staking/local keys and the local genesis), BLS signer keys, and the certificates
`simnode export-network` writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from simnode.crypto import bls
from simnode.crypto.hashing import ripemd160, sha256
from simnode.formats.ids import node_id_to_str
from simnode.scenario.export import exported_nodes, node_id_of_certificate, staking_certificate

LOCAL = Path(__file__).resolve().parents[1] / "vectors" / "avalanchego_staking_local"
GENESIS = json.loads((Path(__file__).resolve().parents[2] / "genesis" / "genesis_local.json").read_text())


@pytest.mark.parametrize("k", range(1, 6))
def test_node_ids_of_avalanchegos_local_staking_keys(k):
    staker = GENESIS["initialStakers"][k - 1]
    cert = (LOCAL / f"staker{k}.crt").read_bytes()
    assert node_id_to_str(node_id_of_certificate(cert)) == staker["nodeID"]
    der = x509.load_pem_x509_certificate(cert).public_bytes(serialization.Encoding.DER)
    assert node_id_of_certificate(der) == node_id_of_certificate(cert)
    signer = bls.secret_key_from_bytes((LOCAL / f"signer{k}.key").read_bytes())
    assert "0x" + bls.public_key(signer).hex() == staker["signer"]["publicKey"]


def test_exported_identities_are_what_avalanchego_makes_and_reads():
    nodes = exported_nodes(3, seed=7)
    assert len({n.node_id for n in nodes}) == 3
    for n in nodes:
        cert = x509.load_pem_x509_certificate(n.cert_pem)
        assert isinstance(cert.public_key(), ec.EllipticCurvePublicKey)
        assert cert.public_key().curve.name == "secp256r1"
        key = serialization.load_pem_private_key(n.key_pem, None)
        assert key.public_key().public_numbers() == cert.public_key().public_numbers()
        assert n.key_pem.startswith(b"-----BEGIN PRIVATE KEY-----")  # PKCS#8, as x509.MarshalPKCS8PrivateKey
        assert cert.extensions.get_extension_for_class(x509.KeyUsage).value.digital_signature
        cert.verify_directly_issued_by(cert)  # self-signed
        der = cert.public_bytes(serialization.Encoding.DER)
        assert len(der) <= 2048  # staking.MaxCertificateLen
        assert n.node_id == ripemd160(sha256(der))
        assert len(n.signer.to_bytes()) == 32
        assert bls.verify_possession(n.public_key, n.proof_of_possession)
    # the same seed gives the same files; another seed others
    again = exported_nodes(3, seed=7)
    assert [(n.cert_pem, n.key_pem, n.signer.to_bytes()) for n in again] == \
        [(n.cert_pem, n.key_pem, n.signer.to_bytes()) for n in nodes]
    assert exported_nodes(1, seed=8)[0].node_id != nodes[0].node_id
    assert staking_certificate(b"\x01" * 32) == staking_certificate(b"\x01" * 32)
