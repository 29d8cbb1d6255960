#!/usr/bin/env python3
"""Compile simnode's ICM contracts (simnode/icm/contracts/*.sol) into the JSON artifacts beside them,
byte for byte reproducibly, with the pinned solc-js (the npm package `solc`, a WebAssembly build:
nothing else is downloaded).

    python3 scripts/compile_contracts.py                      # npm i solc@PIN in a scratch dir, write artifacts
    python3 scripts/compile_contracts.py --check              # compile and compare only (exit 1 on a difference)
    python3 scripts/compile_contracts.py --node-modules tests/js/node_modules   # use an installed solc

Every .sol file of the folder goes into one standard-JSON compilation (sorted by name, so the
metadata hash embedded in the bytecode is stable); ARTIFACTS names the contracts that get a JSON file.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTRACTS = ROOT / "simnode" / "icm" / "contracts"
SOLC_PACKAGE = "solc@0.8.37"
SOLC_VERSION = "0.8.37+commit.f401782d.Emscripten.clang"
ARTIFACTS = ("TeleporterMessenger", "PingPongReceiver")
# Shanghai (PUSH0) is the oldest EVM an ICM chain can run: Warp needs Durango, which brought Shanghai.
SETTINGS = {
    "optimizer": {"enabled": True, "runs": 200},
    "evmVersion": "shanghai",
    "metadata": {"bytecodeHash": "ipfs"},
    "outputSelection": {"*": {"*": ["abi", "metadata", "evm.bytecode.object", "evm.deployedBytecode.object",
                                    "evm.methodIdentifiers", "storageLayout"]}},
}
# Reads the standard-JSON input on stdin, prints {"version", "output"}; argv[1] is the solc package folder.
_COMPILE_JS = """
const solc = require(process.argv[1]);
let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  process.stdout.write(JSON.stringify({version: solc.version(), output: JSON.parse(solc.compile(input))}));
});
"""


def standard_input(sources: dict[str, bytes]) -> dict:
    return {
        "language": "Solidity",
        "sources": {name: {"content": text.decode()} for name, text in sorted(sources.items())},
        "settings": SETTINGS,
    }


def run_solc(solc_dir: Path, std_input: dict) -> dict:
    proc = subprocess.run(["node", "-e", _COMPILE_JS, str(solc_dir)], input=json.dumps(std_input).encode(),
                          capture_output=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"solc-js failed: {proc.stderr.decode(errors='replace')}")
    result = json.loads(proc.stdout)
    if result["version"] != SOLC_VERSION:
        raise SystemExit(f"{solc_dir} holds solc {result['version']}, expected {SOLC_VERSION}")
    output = result["output"]
    errors = [e for e in output.get("errors", []) if e["severity"] == "error"]
    for e in output.get("errors", []):
        print(e["formattedMessage"], file=sys.stderr)
    if errors:
        raise SystemExit(f"{len(errors)} compile error(s)")
    return output


def artifacts(output: dict) -> dict[str, str]:
    """File name -> exact JSON text of each artifact."""
    out: dict[str, str] = {}
    for name in ARTIFACTS:
        source = f"{name}.sol"
        compiled = output["contracts"][source][name]
        # the sources this contract was built from, as its metadata (and so its bytecode) commits to them
        hashes = {path: meta["keccak256"] for path, meta in sorted(json.loads(compiled["metadata"])["sources"].items())}
        doc = {
            "contractName": name,
            "sourceName": source,
            "compiler": {"package": SOLC_PACKAGE, "version": SOLC_VERSION},
            "settings": {k: v for k, v in SETTINGS.items() if k != "outputSelection"},
            "sourceKeccak256": hashes,
            "abi": compiled["abi"],
            "methodIdentifiers": compiled["evm"]["methodIdentifiers"],
            "bytecode": "0x" + compiled["evm"]["bytecode"]["object"],
            "deployedBytecode": "0x" + compiled["evm"]["deployedBytecode"]["object"],
            "storageLayout": compiled["storageLayout"],
        }
        out[f"{name}.json"] = json.dumps(doc, indent=1) + "\n"
    return out


def install_solc(into: Path) -> Path:
    subprocess.run(["npm", "install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--silent",
                    SOLC_PACKAGE], cwd=into, check=True)
    return into / "node_modules"


def compile_all(node_modules: Path | None) -> dict[str, str]:
    sources = {p.name: p.read_bytes() for p in sorted(CONTRACTS.glob("*.sol"))}
    with tempfile.TemporaryDirectory(prefix="simnode-solc-") as scratch:
        modules = node_modules if node_modules is not None else install_solc(Path(scratch))
        output = run_solc((modules / "solc").resolve(), standard_input(sources))
    return artifacts(output)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the checked-in artifacts, write nothing")
    parser.add_argument("--node-modules", type=Path, help=f"a node_modules folder that holds {SOLC_PACKAGE}")
    args = parser.parse_args()
    built = compile_all(args.node_modules)
    stale = [name for name, text in built.items()
             if not (CONTRACTS / name).exists() or (CONTRACTS / name).read_text() != text]
    if args.check:
        for name in stale:
            print(f"{name}: differs from a fresh compile", file=sys.stderr)
        print("artifacts reproduce" if not stale else f"{len(stale)} artifact(s) differ")
        return 1 if stale else 0
    for name, text in built.items():
        (CONTRACTS / name).write_text(text)
    print(f"wrote {', '.join(built)} ({len(stale)} changed) with solc {SOLC_VERSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
