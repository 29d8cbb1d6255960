"""The deprecated /v1/teleporter/* answers (simnode/api/data/icm.py): an ICM message in its
Teleporter form, and the list's union as the deprecated document has it."""

from __future__ import annotations

from simnode.api.data import icm
from simnode.api.data.spec import DATA, document


def message(status: str) -> dict:
    return {"messageId": "ab" * 32, "icmContractAddress": "0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf",
            "messageNonce": "1", "status": status}


def test_the_contract_address_takes_its_old_name_in_place():
    old = icm.teleporter_form(message("pending"))
    assert list(old) == ["messageId", "teleporterContractAddress", "messageNonce", "status"]
    assert old["teleporterContractAddress"] == message("pending")["icmContractAddress"]


def test_the_list_keeps_the_icm_form_for_a_message_whose_source_is_not_indexed():
    answer = {"messages": [message("delivered"), message("delivered_source_not_indexed"), message("pending")],
              "nextPageToken": "t"}
    listed = icm._teleporter_list(answer)
    assert [("teleporterContractAddress" in m, "icmContractAddress" in m) for m in listed["messages"]] == [
        (True, False), (False, True), (True, False)]
    assert listed["nextPageToken"] == "t"


def test_deprecated_operations_take_the_icm_routes_parameters():
    doc = document(DATA)
    for op in icm.deprecated_operations():
        icm_route, operation_id = icm.DEPRECATED_ROUTES[op.template]
        assert op.operation_id == operation_id and op.method == "GET"
        assert [p.name for p in op.params] == [p["name"] for p in doc["paths"][icm_route]["get"]["parameters"]]
