"""The scenario of the Data API's EVM tests: index_scenario's (native transfers, an ERC-20, an
ERC-1155 minted and batch-transferred, an ERC-721 minted, transferred and burned, a factory that
CREATEs and CREATE2s contracts, value moved by internal calls and SELFDESTRUCT, reverted txs) plus
an ERC-721 whose tokens carry every kind of token URI, and an ERC-20 and an ERC-1155 whose
Transfer logs do not add up to their balances. Also the Data API walks the tests share."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from eth_account import Account
from web3 import Web3

from . import index_scenario
from .dataapi import api
from .index_scenario import Scenario

ZERO = "0x" + "00" * 20
ART_ONE = {"name": "Art #1", "description": "the first", "image": "data:image/svg+xml;base64,PHN2Zy8+",
           "animation_url": "https://example.com/1.mp4", "external_url": "https://example.com/1",
           "background_color": "ffffff", "attributes": [{"trait_type": "color", "value": "red"}]}
# token ID -> (tokenURI, the indexStatus it gives, the metadata fields beside indexStatus)
ART_URIS: dict[int, tuple[str, str, dict]] = {
    1: ("data:application/json;base64," + base64.b64encode(json.dumps(ART_ONE).encode()).decode(), "INDEXED",
        {"name": "Art #1", "description": "the first", "imageUri": "data:image/svg+xml;base64,PHN2Zy8+",
         "animationUri": "https://example.com/1.mp4", "externalUrl": "https://example.com/1", "background": "ffffff",
         "attributes": '[{"trait_type":"color","value":"red"}]'}),
    2: ("data:application/json," + quote('{"name": "Art #2", "symbol": "A2"}'), "INDEXED",
        {"name": "Art #2", "symbol": "A2"}),
    3: ('data:application/json;charset=utf-8,{"name":"Ärt #3"}', "INDEXED", {"name": "Ärt #3"}),
    4: ("https://example.com/art/4.json", "UNREACHABLE_TOKEN_URI", {}),
    5: ("ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/5", "UNREACHABLE_TOKEN_URI", {}),
    6: ("ftp://example.com/6.json", "INVALID_TOKEN_URI_SCHEME", {}),
    7: ("art-7.json", "INVALID_TOKEN_URI_SCHEME", {}),
    8: ("data:application/json,{not json", "INVALID_METADATA_JSON", {}),
    9: ("data:application/json;base64,!!not base64!!", "INVALID_TOKEN_URI", {}),
    10: ("data:application/json,[1,2]", "INVALID_METADATA", {}),
    11: ("", "INVALID_TOKEN_URI", {}),
}


@dataclass
class EvmScenario:
    s: Scenario
    carol: Any = None
    art: Any = None
    odd: Any = None
    odd_multi: Any = None


def run(w3: Web3, chain_id: int) -> EvmScenario:
    s = index_scenario.run(w3, chain_id)
    out = EvmScenario(s, carol=Account.from_key(b"\xc0" * 32))
    alice, bob = s.alice, s.bob
    s.send(alice, {"to": out.carol.address, "value": 10**18})
    out.art = s.deploy(alice, "Artwork", "Index Art", "IART")
    for token_id, (uri, _, _) in ART_URIS.items():
        s.transact(alice, out.art.functions.mint(alice.address if token_id % 2 else bob.address, token_id, uri))
    s.transact(alice, out.art.functions.transferFrom(alice.address, out.carol.address, 1))
    # an ERC-20 that logs transfers it never makes: bob's derived balance goes below zero (balanceOf
    # says 100), carol's too (balanceOf says 0)
    out.odd = s.deploy(alice, "OddToken", 1000)
    s.transact(alice, out.odd.functions.transfer(bob.address, 100))
    s.transact(alice, out.odd.functions.logOnly(bob.address, ZERO, 150))
    s.transact(alice, out.odd.functions.logOnly(out.carol.address, ZERO, 5))
    # the same for an ERC-1155 (alice holds 10 of ID 7, her logs say -15; bob holds none, his say -1)
    out.odd_multi = s.deploy(alice, "OddMultiToken")
    s.transact(alice, out.odd_multi.functions.mint(alice.address, 7, 10))
    s.transact(alice, out.odd_multi.functions.logOnly(alice.address, ZERO, 7, 25))
    s.transact(alice, out.odd_multi.functions.logOnly(bob.address, ZERO, 7, 1))
    return out


def walk(base: str, path: str, key: str, page_size: int = 100) -> list[dict]:
    """Every item of a list route, page after page (each answer checked against the document)."""
    sep = "&" if "?" in path else "?"
    items: list[dict] = []
    token = None
    while True:
        body = api(base, f"{path}{sep}pageSize={page_size}" + (f"&pageToken={token}" if token else ""))
        items += body[key]
        token = body.get("nextPageToken")
        if token is None:
            return items
        assert token, "an empty nextPageToken: leave it out on the last page"
