"""NFT metadata from token URIs (nft_metadata.py) and EIP-55 addresses (evm_json.checksum): known
answers for every indexStatus, and properties: a metadata object survives both data: encodings."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

from eth_utils import to_checksum_address
from hypothesis import given
from hypothesis import strategies as st

from simnode.api.data.evm_json import checksum
from simnode.api.data.nft_metadata import resolved_uri, token_metadata

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


def test_every_status_from_a_uri():
    cases = {
        'data:application/json,{"name":"a"}': {"indexStatus": "INDEXED", "name": "a"},
        "data:application/json;base64," + base64.b64encode(b'{"name":"b"}').decode(): {"indexStatus": "INDEXED",
                                                                                         "name": "b"},
        "DATA:application/json;BASE64,e30=": {"indexStatus": "INDEXED"},
        "data:,%7B%7D": {"indexStatus": "INDEXED"},
        "https://example.com/1.json": {"indexStatus": "UNREACHABLE_TOKEN_URI"},
        "HTTP://example.com/1.json": {"indexStatus": "UNREACHABLE_TOKEN_URI"},
        "ipfs://Qm/1": {"indexStatus": "UNREACHABLE_TOKEN_URI"},
        "ar://tx/1": {"indexStatus": "UNREACHABLE_TOKEN_URI"},
        "ftp://example.com/1": {"indexStatus": "INVALID_TOKEN_URI_SCHEME"},
        "1.json": {"indexStatus": "INVALID_TOKEN_URI_SCHEME"},
        "/tokens/1": {"indexStatus": "INVALID_TOKEN_URI_SCHEME"},
        "": {"indexStatus": "INVALID_TOKEN_URI"},
        "data:application/json": {"indexStatus": "INVALID_TOKEN_URI"},  # no comma
        "data:application/json;base64,e30": {"indexStatus": "INVALID_TOKEN_URI"},  # bad padding
        "data:application/json,{": {"indexStatus": "INVALID_METADATA_JSON"},
        "data:application/json,%FF": {"indexStatus": "INVALID_METADATA_JSON"},  # not UTF-8
        "data:application/json,NaN": {"indexStatus": "INVALID_METADATA_JSON"},  # not JSON
        'data:application/json,"a"': {"indexStatus": "INVALID_METADATA"},
        "data:application/json,[]": {"indexStatus": "INVALID_METADATA"},
    }
    for uri, want in cases.items():
        assert token_metadata(uri, 1, False) == want, uri
    assert token_metadata(None, 1, False) == {"indexStatus": "INVALID_TOKEN_URI"}


def test_fields_of_each_standard_and_wrong_types_left_out():
    doc = {"name": "n", "symbol": "s", "description": "d", "image": "i", "animation_url": "a", "external_url": "e",
           "background_color": "b", "attributes": [{"value": 2**70}], "properties": {"p": 1}, "decimals": 2}
    uri = "data:application/json," + quote(json.dumps(doc))
    common = {"indexStatus": "INDEXED", "name": "n", "symbol": "s", "description": "d", "imageUri": "i",
              "animationUri": "a", "externalUrl": "e", "background": "b"}
    assert token_metadata(uri, 1, False) == {**common, "attributes": '[{"value":1180591620717411303424}]'}
    assert token_metadata(uri, 1, True) == {**common, "properties": '{"p":1}', "decimals": 2}
    wrong = {"name": 5, "image": None, "decimals": "2", "background_color": ["b"]}
    assert token_metadata("data:," + quote(json.dumps(wrong)), 1, True) == {"indexStatus": "INDEXED"}


def test_erc1155_id_placeholder():
    assert resolved_uri("https://x/{id}.json", 0x2A, True) == "https://x/" + "0" * 62 + "2a.json"
    assert resolved_uri("https://x/{id}.json", 0x2A, False) == "https://x/{id}.json"
    assert resolved_uri(None, 1, True) is None


@given(st.dictionaries(TEXT, TEXT, max_size=5), TEXT)
def test_a_metadata_object_survives_both_data_encodings(extra, name):
    doc = {**extra, "name": name}
    raw = json.dumps(doc).encode()
    for uri in ("data:application/json;base64," + base64.b64encode(raw).decode(),
                "data:application/json," + quote(raw)):
        got = token_metadata(uri, 7, False)
        assert got["indexStatus"] == "INDEXED" and got["name"] == name


@given(st.binary(min_size=20, max_size=20))
def test_checksum_is_eip55(address):
    assert checksum(address) == to_checksum_address(address)
