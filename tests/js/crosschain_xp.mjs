// X ↔ P round trip with avalanchejs 5.2.0 against a running simnode, as a wallet would do it:
//   1. X BaseTx      ewoq → K (a fresh key)                      avm.newBaseTx
//   2. X ExportTx    K → P shared memory                         avm.newExportTx
//   3. P ImportTx    K imports it on P                           pvm.e.newImportTx  (fee from platform.getFeeState)
//   4. P ExportTx    K → X shared memory                         pvm.e.newExportTx
//   5. X ImportTx    K imports it on X                           avm.newImportTx
// After every step it waits for Accepted / Committed and snapshots, over plain HTTP, the balances of
// every involved address (ewoq and K, on X and on P) and the atomic UTXOs in between, and records what
// the tx burned (Σ inputs − Σ outputs, exported outputs included) from avalanchejs' own tx object.
// Usage: node crosschain_xp.mjs <baseURL>          (prints one JSON line)
import { avm, pvm, Context, utils, addTxSignatures, TransferableOutput, secp256k1 } from '@avalabs/avalanchejs';
import { createHash } from 'node:crypto';

const [baseURL] = process.argv.slice(2);
if (!baseURL) throw new Error('usage: node crosschain_xp.mjs <baseURL>');

const EWOQ_KEY = utils.hexToBuffer('0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027');
const K_KEY = new Uint8Array(createHash('sha256').update('simnode-js-crosschain-key').digest());
const AVAX = 1_000_000_000n;
const SEND = 1000n * AVAX; // ewoq → K on X
const X_TO_P = 600n * AVAX; // exported from X to P
const P_TO_X = 250n * AVAX; // exported from P back to X

const context = await Context.getContextFromURI(baseURL);
const xapi = new avm.AVMApi(baseURL);
const papi = new pvm.PVMApi(baseURL);

const addrBytes = (key) => secp256k1.publicKeyBytesToAddress(secp256k1.getPublicKey(key));
const ewoqBytes = addrBytes(EWOQ_KEY);
const kBytes = addrBytes(K_KEY);
const fmt = (chain, bytes) => utils.format(chain, context.hrp, bytes);
const ADDR = {
  ewoqX: fmt('X', ewoqBytes),
  ewoqP: fmt('P', ewoqBytes),
  kX: fmt('X', kBytes),
  kP: fmt('P', kBytes),
};

async function rpc(chain, method, params) {
  const res = await fetch(`${baseURL}/ext/bc/${chain}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function waitFor(chain, txID) {
  const [method, done] = chain === 'X' ? ['avm.getTxStatus', 'Accepted'] : ['platform.getTxStatus', 'Committed'];
  const deadline = Date.now() + 10000;
  for (;;) {
    const { status } = await rpc(chain, method, { txID });
    if (status === done) return status;
    if (status === 'Aborted' || status === 'Dropped') throw new Error(`tx ${txID} ${status}`);
    if (Date.now() > deadline) throw new Error(`tx ${txID} still ${status} after 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sumUtxos = (utxos) => utxos.reduce((s, u) => s + BigInt(u.output.amount()), 0n);

async function snapshot() {
  const bal = {};
  for (const k of ['ewoqX', 'kX']) {
    bal[k] = (await rpc('X', 'avm.getBalance', { address: ADDR[k], assetID: 'AVAX' })).balance;
  }
  for (const k of ['ewoqP', 'kP']) {
    bal[k] = (await rpc('P', 'platform.getBalance', { addresses: [ADDR[k]] })).balance;
  }
  // Atomic UTXOs waiting in shared memory: exported X→P (seen from P) and P→X (seen from X).
  const onPfromX = await papi.getUTXOs({ addresses: [ADDR.kP, ADDR.ewoqP], sourceChain: 'X' });
  const onXfromP = await xapi.getUTXOs({ addresses: [ADDR.kX, ADDR.ewoqX], sourceChain: 'P' });
  bal.atomicOnPfromX = sumUtxos(onPfromX.utxos).toString();
  bal.atomicOnXfromP = sumUtxos(onXfromP.utxos).toString();
  bal.atomicOnPfromXCount = onPfromX.utxos.length;
  bal.atomicOnXfromPCount = onXfromP.utxos.length;
  return bal;
}

// Σ inputs − Σ outputs (AVAX only), read off avalanchejs' own parsed tx.
function burnedOf(unsignedTx) {
  const tx = unsignedTx.getTx();
  const ins = utils.getTransferableInputsByTx(tx)
    .filter((i) => i.assetId.toString() === context.avaxAssetID)
    .reduce((s, i) => s + i.amount(), 0n);
  const outs = utils.getTransferableOutputsByTx(tx)
    .filter((o) => o.assetId.toString() === context.avaxAssetID)
    .reduce((s, o) => s + o.amount(), 0n);
  const lib = utils.getBurnedAmountByTx(tx, context).get(context.avaxAssetID) ?? 0n;
  if (lib !== ins - outs) throw new Error(`burned mismatch: ${lib} vs ${ins - outs}`);
  return ins - outs;
}

const steps = [];
async function step(name, chain, unsignedTx, keys) {
  await addTxSignatures({ unsignedTx, privateKeys: keys });
  if (!unsignedTx.hasAllSignatures()) throw new Error(`${name}: not fully signed`);
  const signed = unsignedTx.getSignedTx();
  const expectedID = utils.base58check.encode(new Uint8Array(createHash('sha256').update(signed.toBytes()).digest()));
  const api = chain === 'X' ? xapi : papi;
  const { txID } = await api.issueSignedTx(signed);
  const status = await waitFor(chain, txID);
  // The client reads the tx back (avm.getTx / platform.getTx, parsed by its codec): same bytes.
  const readBack = utils.bufferToHex((await api.getTx({ txID })).toBytes()) === utils.bufferToHex(signed.toBytes());
  steps.push({
    name,
    chain,
    txID,
    expectedTxID: expectedID,
    status,
    readBack,
    txType: unsignedTx.getTx()._type,
    burned: burnedOf(unsignedTx).toString(),
    balances: await snapshot(),
  });
}

const feeState0 = await papi.getFeeState();
const before = await snapshot();

// 1. X: ewoq → K
{
  const { utxos } = await xapi.getUTXOs({ addresses: [ADDR.ewoqX] });
  const tx = avm.newBaseTx(context, [ewoqBytes], utxos, [
    TransferableOutput.fromNative(context.avaxAssetID, SEND, [kBytes]),
  ]);
  await step('X.BaseTx', 'X', tx, [EWOQ_KEY]);
}

// 2. X → P export (K's funds, to K on P)
{
  const { utxos } = await xapi.getUTXOs({ addresses: [ADDR.kX] });
  const tx = avm.newExportTx(context, context.pBlockchainID, [kBytes], utxos, [
    TransferableOutput.fromNative(context.avaxAssetID, X_TO_P, [kBytes]),
  ]);
  await step('X.ExportTx', 'X', tx, [K_KEY]);
}

// 3. P import from X
{
  const { utxos } = await papi.getUTXOs({ addresses: [ADDR.kP], sourceChain: 'X' });
  if (utxos.length !== 1) throw new Error(`expected 1 atomic UTXO on P, got ${utxos.length}`);
  const feeState = await papi.getFeeState();
  const tx = pvm.e.newImportTx({
    feeState,
    fromAddressesBytes: [kBytes],
    sourceChainId: context.xBlockchainID,
    toAddressesBytes: [kBytes],
    utxos,
  }, context);
  await step('P.ImportTx', 'P', tx, [K_KEY]);
}

// 4. P → X export
{
  const { utxos } = await papi.getUTXOs({ addresses: [ADDR.kP] });
  const feeState = await papi.getFeeState();
  const tx = pvm.e.newExportTx({
    feeState,
    fromAddressesBytes: [kBytes],
    destinationChainId: context.xBlockchainID,
    outputs: [TransferableOutput.fromNative(context.avaxAssetID, P_TO_X, [kBytes])],
    utxos,
  }, context);
  await step('P.ExportTx', 'P', tx, [K_KEY]);
}

// 5. X import from P
{
  const { utxos } = await xapi.getUTXOs({ addresses: [ADDR.kX], sourceChain: 'P' });
  if (utxos.length !== 1) throw new Error(`expected 1 atomic UTXO on X, got ${utxos.length}`);
  const tx = avm.newImportTx(context, context.pBlockchainID, utxos, [kBytes], [kBytes]);
  await step('X.ImportTx', 'X', tx, [K_KEY]);
}

console.log(JSON.stringify({
  context: {
    networkID: context.networkID,
    hrp: context.hrp,
    xBlockchainID: context.xBlockchainID,
    pBlockchainID: context.pBlockchainID,
    cBlockchainID: context.cBlockchainID,
    avaxAssetID: context.avaxAssetID,
    baseTxFee: context.baseTxFee.toString(),
    createAssetTxFee: context.createAssetTxFee.toString(),
    platformFeeConfig: {
      weights: Array.from(Object.values(context.platformFeeConfig.weights), Number),
      maxCapacity: context.platformFeeConfig.maxCapacity.toString(),
      maxPerSecond: context.platformFeeConfig.maxPerSecond.toString(),
      targetPerSecond: context.platformFeeConfig.targetPerSecond.toString(),
      minPrice: context.platformFeeConfig.minPrice.toString(),
      excessConversionConstant: context.platformFeeConfig.excessConversionConstant.toString(),
    },
  },
  feeState: { price: feeState0.price.toString(), capacity: feeState0.capacity.toString(), excess: feeState0.excess.toString() },
  addresses: ADDR,
  amounts: { send: SEND.toString(), xToP: X_TO_P.toString(), pToX: P_TO_X.toString() },
  before,
  steps,
}));
