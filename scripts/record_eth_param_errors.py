"""Re-record tests/vectors/avalanchego_eth_param_errors.json from a real node's C-Chain.

    python scripts/record_eth_param_errors.py http://127.0.0.1:9650/ext/bc/C/rpc

Sends each case of the file (method, params) and writes the node's answer back: its error object,
or {"result": "ok"} for a result. tests/unit/test_eth_param_errors.py replays the file on simnode.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

VECTORS = Path(__file__).resolve().parents[1] / "tests" / "vectors" / "avalanchego_eth_param_errors.json"


def answer(url: str, method: str, params: list) -> dict:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(url, body, {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        reply = json.loads(r.read())
    return reply["error"] if "error" in reply else {"result": "ok"}


def main() -> None:
    url = sys.argv[1]
    doc = json.loads(VECTORS.read_text())
    for case in doc["cases"]:
        case["answer"] = answer(url, case["method"], case["params"])
        print(case["label"], json.dumps(case["answer"]))
    VECTORS.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
