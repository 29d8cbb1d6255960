"""The JSON forms (encoding=json) of P-Chain txs and blocks, as `platform.getTx` and
`platform.getBlock` return them.

What AvalancheGo's json.Marshal of a txs.Tx / block.Block gives once InitCtx has run: struct fields in
declaration order with their json tags (vms/platformvm/txs/*.go), embedded structs promoted, plain
uint64/uint32 as numbers, shared pieces (BaseTx, outputs, inputs, owners, credentials) as in
simnode.vms.txjson.
"""

from __future__ import annotations

from typing import Any

from simnode.codec import OutputOwners
from simnode.formats import id_to_str, node_id_to_str, short_id_to_str
from simnode.vms import txjson
from simnode.warp.acp77 import PChainOwner

from . import blocks
from . import txs as t
from .tx_parts import ConvertSubnetToL1Validator, ProofOfPossession, Validator


def _validator_json(v: Validator) -> dict[str, Any]:
    """txs.Validator: ``nodeID, start, end, weight``."""
    return {"nodeID": node_id_to_str(v.node_id), "start": v.start, "end": v.end, "weight": v.weight}


def _signer_json(s: Any) -> dict[str, Any]:
    """signer.Empty marshals as ``{}``; ProofOfPossession as ``{publicKey, proofOfPossession}`` in 0x hex."""
    if isinstance(s, ProofOfPossession):
        return {"publicKey": txjson.hex_bytes(s.public_key), "proofOfPossession": txjson.hex_bytes(s.proof)}
    return {}


def _pchain_owner_json(o: PChainOwner) -> dict[str, Any]:
    """message.PChainOwner: ``threshold, addresses`` (ids.ShortID, so bare cb58 — no InitCtx here)."""
    return {"threshold": o.threshold, "addresses": [short_id_to_str(a) for a in o.addresses]}


def _l1_validator_json(v: ConvertSubnetToL1Validator) -> dict[str, Any]:
    """txs.ConvertSubnetToL1Validator: nodeID is a JSONByteSlice (0x hex), not a NodeID."""
    return {"nodeID": txjson.hex_bytes(v.node_id), "weight": v.weight, "balance": v.balance,
            "signer": _signer_json(v.signer), "remainingBalanceOwner": _pchain_owner_json(v.remaining_balance_owner),
            "deactivationOwner": _pchain_owner_json(v.deactivation_owner)}


def unsigned_tx_json(tx: Any, addr: txjson.AddrFn) -> dict[str, Any]:
    """The ``unsignedTx`` object of any P tx type."""
    if isinstance(tx, t.RewardValidatorTx):
        return {"txID": id_to_str(tx.tx_id)}
    if not isinstance(tx, t.UnsignedTx):
        raise TypeError(f"no JSON form for {type(tx).__name__}")

    def owner(o: OutputOwners) -> dict[str, Any]:
        return txjson.owners_json(o, addr)

    def outs(os: tuple) -> list[dict[str, Any]]:
        return txjson.secp_outputs_json(os, addr)

    d = txjson.base_tx_json(tx.base, lambda o: txjson.secp_transferable_output_json(o, addr),
                            txjson.secp_transferable_input_json)
    if isinstance(tx, t.BaseTx):
        pass
    elif isinstance(tx, t.CreateSubnetTx):
        d["owner"] = owner(tx.owner)
    elif isinstance(tx, t.CreateChainTx):
        d.update({"subnetID": id_to_str(tx.subnet_id), "chainName": tx.chain_name, "vmID": id_to_str(tx.vm_id),
                  "fxIDs": [id_to_str(f) for f in tx.fx_ids],
                  # GenesisData is a plain []byte in Go: encoding/json writes base64
                  "genesisData": txjson.base64_bytes(tx.genesis_data),
                  "subnetAuthorization": txjson.sig_input_json(tx.subnet_auth)})
    elif isinstance(tx, t.ImportTx):
        d["sourceChain"] = id_to_str(tx.source_chain)
        d["importedInputs"] = txjson.secp_inputs_json(tx.imported_inputs)
    elif isinstance(tx, t.ExportTx):
        d["destinationChain"] = id_to_str(tx.destination_chain)
        d["exportedOutputs"] = outs(tx.exported_outputs)
    elif isinstance(tx, t.AddValidatorTx):
        d.update({"validator": _validator_json(tx.validator), "stake": outs(tx.stake_outs),
                  "rewardsOwner": owner(tx.rewards_owner), "shares": tx.delegation_shares})
    elif isinstance(tx, t.AddDelegatorTx):
        d.update({"validator": _validator_json(tx.validator), "stake": outs(tx.stake_outs),
                  "rewardsOwner": owner(tx.rewards_owner)})
    elif isinstance(tx, t.AddSubnetValidatorTx):
        # SubnetValidator embeds Validator and adds subnetID, all under the "validator" tag
        d["validator"] = {**_validator_json(tx.validator), "subnetID": id_to_str(tx.subnet_id)}
        d["subnetAuthorization"] = txjson.sig_input_json(tx.subnet_auth)
    elif isinstance(tx, t.RemoveSubnetValidatorTx):
        d.update({"nodeID": node_id_to_str(tx.node_id), "subnetID": id_to_str(tx.subnet_id),
                  "subnetAuthorization": txjson.sig_input_json(tx.subnet_auth)})
    elif isinstance(tx, t.AddPermissionlessValidatorTx):
        d.update({"validator": _validator_json(tx.validator), "subnetID": id_to_str(tx.subnet_id),
                  "signer": _signer_json(tx.signer), "stake": outs(tx.stake_outs),
                  "validationRewardsOwner": owner(tx.validation_rewards_owner),
                  "delegationRewardsOwner": owner(tx.delegation_rewards_owner), "shares": tx.delegation_shares})
    elif isinstance(tx, t.AddPermissionlessDelegatorTx):
        d.update({"validator": _validator_json(tx.validator), "subnetID": id_to_str(tx.subnet_id),
                  "stake": outs(tx.stake_outs), "rewardsOwner": owner(tx.rewards_owner)})
    elif isinstance(tx, t.TransferSubnetOwnershipTx):
        d.update({"subnetID": id_to_str(tx.subnet_id), "subnetAuthorization": txjson.sig_input_json(tx.subnet_auth),
                  "newOwner": owner(tx.owner)})
    elif isinstance(tx, t.ConvertSubnetToL1Tx):
        d.update({"subnetID": id_to_str(tx.subnet_id), "chainID": id_to_str(tx.chain_id),
                  "address": txjson.hex_bytes(tx.address),
                  "validators": [_l1_validator_json(v) for v in tx.validators],
                  "subnetAuthorization": txjson.sig_input_json(tx.subnet_auth)})
    elif isinstance(tx, t.RegisterL1ValidatorTx):
        # ProofOfPossession is a [96]byte array in Go: encoding/json writes a list of numbers
        d.update({"balance": tx.balance, "proofOfPossession": list(tx.proof_of_possession),
                  "message": txjson.hex_bytes(tx.message)})
    elif isinstance(tx, t.SetL1ValidatorWeightTx):
        d["message"] = txjson.hex_bytes(tx.message)
    elif isinstance(tx, t.IncreaseL1ValidatorBalanceTx):
        d.update({"validationID": id_to_str(tx.validation_id), "balance": tx.balance})
    elif isinstance(tx, t.DisableL1ValidatorTx):
        d.update({"validationID": id_to_str(tx.validation_id),
                  "disableAuthorization": txjson.sig_input_json(tx.disable_auth)})
    else:
        raise TypeError(f"no JSON form for {type(tx).__name__}")
    return d


def tx_json(stx: Any, addr: txjson.AddrFn) -> dict[str, Any]:
    """txs.Tx: ``unsignedTx, credentials, id`` (P credentials are bare secp256k1fx.Credentials)."""
    return {"unsignedTx": unsigned_tx_json(stx.unsigned, addr),
            "credentials": [txjson.credential_json(c) for c in stx.credentials], "id": id_to_str(stx.tx_id)}


def block_json(raw: bytes, addr: txjson.AddrFn) -> dict[str, Any]:
    """Go's json.Marshal of the block: own fields, then the embedded struct's promoted ones, in order.

    BanffStandardBlock: ``time``, CommonBlock (``parentID, height, id``), ``txs``. BanffProposalBlock:
    ``time, txs`` (decision txs), CommonBlock, ``tx`` (the proposal). BanffCommitBlock: ``time``,
    CommonBlock. The genesis ApricotCommitBlock: just the CommonBlock."""
    b = blocks.decode_block(raw)
    common = {"parentID": id_to_str(b.parent_id), "height": b.height, "id": id_to_str(blocks.block_id(raw))}
    txs_ = [tx_json(s, addr) for s in b.txs]
    if b.type_id == blocks.APRICOT_COMMIT_BLOCK:
        return common
    if b.type_id == t.BANFF_COMMIT_BLOCK:
        return {"time": b.time, **common}
    if b.type_id == t.BANFF_PROPOSAL_BLOCK:
        return {"time": b.time, "txs": txs_, **common, "tx": tx_json(b.proposal_tx, addr)}
    return {"time": b.time, **common, "txs": txs_}
