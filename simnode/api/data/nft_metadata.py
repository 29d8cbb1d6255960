"""NFT metadata from a token's URI, without a single outbound request.

`token_metadata(uri, token_id, erc1155)` gives the spec's Erc721TokenMetadata /
Erc1155TokenMetadata: `indexStatus` (NftTokenMetadataStatus) and the metadata JSON's fields.

* A `data:` URI (RFC 2397; base64 or percent-encoded, any media type) is decoded here; its JSON
  object fills the fields: name, symbol, description, image -> imageUri, animation_url ->
  animationUri, external_url -> externalUrl, background_color -> background, and, as compact JSON
  strings, attributes (ERC-721) or properties (ERC-1155, with its decimals). A field of the wrong
  JSON type is left out. Status INDEXED; INVALID_METADATA_JSON when the payload is not JSON (or not
  UTF-8), INVALID_METADATA when it is JSON but not an object, INVALID_TOKEN_URI when the data URI
  itself is malformed (no comma, bad base64).
* http(s)://, ipfs:// and ar:// URIs would be fetched by the hosted API; this node fetches
  nothing, so the metadata is out of its reach: UNREACHABLE_TOKEN_URI.
* Any other scheme (or none): INVALID_TOKEN_URI_SCHEME. No URI at all (tokenURI/uri reverted or
  answered no string) or an empty one: INVALID_TOKEN_URI.

ERC-1155's `{id}` placeholder is replaced with the ID as 64 lower-case hex digits first, as the
standard tells clients to.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any
from urllib.parse import unquote_to_bytes

INDEXED = "INDEXED"
INVALID_TOKEN_URI = "INVALID_TOKEN_URI"
INVALID_TOKEN_URI_SCHEME = "INVALID_TOKEN_URI_SCHEME"
UNREACHABLE_TOKEN_URI = "UNREACHABLE_TOKEN_URI"
INVALID_METADATA = "INVALID_METADATA"
INVALID_METADATA_JSON = "INVALID_METADATA_JSON"

FETCHED_SCHEMES = ("http", "https", "ipfs", "ar")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_TEXT_FIELDS = (("name", "name"), ("symbol", "symbol"), ("description", "description"), ("image", "imageUri"),
                ("animation_url", "animationUri"), ("external_url", "externalUrl"),
                ("background_color", "background"))


def resolved_uri(uri: str | None, token_id: int, erc1155: bool) -> str | None:
    """The URI with ERC-1155's {id} placeholder filled in."""
    if uri is None or not erc1155:
        return uri
    return uri.replace("{id}", f"{token_id:064x}")


def data_uri_payload(uri: str) -> bytes | None:
    """The bytes a `data:` URI carries; None when it is malformed."""
    header, sep, data = uri[len("data:"):].partition(",")
    if not sep:
        return None
    if header.lower().endswith(";base64"):
        try:
            return base64.b64decode(unquote_to_bytes(data), validate=True)
        except (binascii.Error, ValueError):
            return None
    return unquote_to_bytes(data)


def token_metadata(uri: str | None, token_id: int, erc1155: bool) -> dict[str, Any]:
    uri = resolved_uri(uri, token_id, erc1155)
    if not uri:
        return {"indexStatus": INVALID_TOKEN_URI}
    scheme = _SCHEME.match(uri)
    name = scheme.group(1).lower() if scheme is not None else ""
    if name in FETCHED_SCHEMES:
        return {"indexStatus": UNREACHABLE_TOKEN_URI}
    if name != "data":
        return {"indexStatus": INVALID_TOKEN_URI_SCHEME}
    payload = data_uri_payload(uri)
    if payload is None:
        return {"indexStatus": INVALID_TOKEN_URI}
    try:
        doc = json.loads(payload.decode("utf-8"), parse_constant=_not_json)
    except (UnicodeDecodeError, ValueError):
        return {"indexStatus": INVALID_METADATA_JSON}
    if not isinstance(doc, dict):
        return {"indexStatus": INVALID_METADATA}
    out: dict[str, Any] = {"indexStatus": INDEXED}
    for key, field in _TEXT_FIELDS:
        if isinstance(doc.get(key), str):
            out[field] = doc[key]
    if erc1155:
        decimals = doc.get("decimals")
        if isinstance(decimals, int) and not isinstance(decimals, bool):
            out["decimals"] = decimals
        if "properties" in doc:
            out["properties"] = _compact(doc["properties"])
    elif "attributes" in doc:
        out["attributes"] = _compact(doc["attributes"])
    return out


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # Python's parser would take NaN and Infinity


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
