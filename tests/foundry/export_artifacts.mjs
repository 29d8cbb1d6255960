// Writes artifacts/<Contract>.json (abi, bytecode, deployedBytecode) from a fresh `forge build`, so
// the ethers and viem scripts need no compiler. forge compiles through ./solc (the pinned solc-js);
// test_cchain_foundry_js.py checks that a fresh build still gives these bytes.
//   node tests/foundry/export_artifacts.mjs
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const CONTRACTS = { Vault: "Vault.sol", Reader: "Reader.sol" };
const root = fileURLToPath(new URL(".", import.meta.url));
const forge = join(root, "../js/node_modules/@foundry-rs/forge-linux-amd64/bin/forge");
const scratch = mkdtempSync(join(tmpdir(), "simnode-forge-"));
try {
  execFileSync(forge, ["build", "--root", root, "--out", join(scratch, "out"), "--cache-path", join(scratch, "cache")],
    { stdio: ["ignore", "inherit", "inherit"] });
  const version = execFileSync(join(root, "solc"), ["--version"]).toString().match(/Version: (\S+)/)[1];
  for (const [name, source] of Object.entries(CONTRACTS)) {
    const built = JSON.parse(readFileSync(join(scratch, "out", source, `${name}.json`), "utf8"));
    const artifact = {
      contractName: name,
      sourceName: `src/${source}`,
      compiler: { package: "solc@0.8.37", version, via: "forge build (foundry.toml)" },
      abi: built.abi,
      bytecode: built.bytecode.object,
      deployedBytecode: built.deployedBytecode.object,
    };
    writeFileSync(join(root, "artifacts", `${name}.json`), JSON.stringify(artifact, null, 1) + "\n");
  }
  console.log(`wrote artifacts/{${Object.keys(CONTRACTS).join(",")}}.json with solc ${version}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
