// X ↔ C and P ↔ C with avalanchejs 5.2.0 against a running simnode, as a wallet would do it:
//   1. X BaseTx      ewoq → K (a fresh key)                        avm.newBaseTx
//   2. X ExportTx    K → C shared memory                           avm.newExportTx
//   3. C ImportTx    K imports it to its C account                 evm.newImportTxFromBaseFee  (eth_baseFee)
//   4. C ExportTx    K's C account → X shared memory               evm.newExportTxFromBaseFee  (nonce from eth)
//   5. X ImportTx    K imports it on X                             avm.newImportTx
//   6. C ExportTx    K's C account → P shared memory               evm.newExportTxFromBaseFee
//   7. P ImportTx    K imports it on P                             pvm.e.newImportTx
//   8. P ExportTx    K → C shared memory                           pvm.e.newExportTx
//   9. C ImportTx    K imports it to its C account                 evm.newImportTxFromBaseFee
// After every step: K's balances on X, P and C (eth_getBalance, in nAVAX) and the atomic UTXOs waiting
// in every shared memory involved, plus what the tx burned (avalanchejs' own getBurnedAmountByTx).
// The C base fee comes from eth_baseFee (wei) and is passed in nAVAX/gas, rounded up.
// Usage: node crosschain_xc.mjs <baseURL>          (prints one JSON line)
import { avm, pvm, evm, Context, utils, addTxSignatures, TransferableOutput, secp256k1 } from '@avalabs/avalanchejs';
import { createHash } from 'node:crypto';

const [baseURL] = process.argv.slice(2);
if (!baseURL) throw new Error('usage: node crosschain_xc.mjs <baseURL>');

const EWOQ_KEY = utils.hexToBuffer('0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027');
const K_KEY = new Uint8Array(createHash('sha256').update('simnode-js-crosschain-xc-key').digest());
const AVAX = 1_000_000_000n;
const SEND = 1000n * AVAX;
const X_TO_C = 300n * AVAX;
const C_TO_X = 100n * AVAX;
const C_TO_P = 50n * AVAX;
const P_TO_C = 20n * AVAX;

const context = await Context.getContextFromURI(baseURL);
const xapi = new avm.AVMApi(baseURL);
const papi = new pvm.PVMApi(baseURL);
const capi = new evm.EVMApi(baseURL);

const addrBytes = (key) => secp256k1.publicKeyBytesToAddress(secp256k1.getPublicKey(key));
const ewoqBytes = addrBytes(EWOQ_KEY);
const kBytes = addrBytes(K_KEY);
const kEthHex = '0x' + Buffer.from(secp256k1.publicKeyToEthAddress(secp256k1.getPublicKey(K_KEY))).toString('hex');
const kEth = utils.hexToBuffer(kEthHex);
const fmt = (chain, bytes) => utils.format(chain, context.hrp, bytes);
const ADDR = { ewoqX: fmt('X', ewoqBytes), kX: fmt('X', kBytes), kP: fmt('P', kBytes), kC: fmt('C', kBytes), kEth: kEthHex };

async function rpc(path, method, params) {
  const res = await fetch(`${baseURL}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function waitFor(chain, txID) {
  const [path, method, done] = {
    X: ['/ext/bc/X', 'avm.getTxStatus', 'Accepted'],
    P: ['/ext/bc/P', 'platform.getTxStatus', 'Committed'],
    C: ['/ext/bc/C/avax', 'avax.getAtomicTxStatus', 'Accepted'],
  }[chain];
  const deadline = Date.now() + 10000;
  for (;;) {
    const res = await rpc(path, method, { txID });
    if (res.status === done) return res;
    if (res.status === 'Aborted' || res.status === 'Dropped') throw new Error(`tx ${txID} ${res.status}`);
    if (Date.now() > deadline) throw new Error(`tx ${txID} still ${res.status} after 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sumUtxos = (utxos) => utxos.reduce((s, u) => s + BigInt(u.output.amount()), 0n);

async function snapshot() {
  const bal = {};
  bal.kX = (await rpc('/ext/bc/X', 'avm.getBalance', { address: ADDR.kX, assetID: 'AVAX' })).balance;
  bal.kP = (await rpc('/ext/bc/P', 'platform.getBalance', { addresses: [ADDR.kP] })).balance;
  const wei = BigInt(await rpc('/ext/bc/C/rpc', 'eth_getBalance', [kEthHex, 'latest']));
  if (wei % AVAX !== 0n) throw new Error(`C balance ${wei} wei is not whole nAVAX`);
  bal.kCWei = wei.toString();
  bal.kC = (wei / AVAX).toString();
  const atomic = {
    onCfromX: (await capi.getUTXOs({ addresses: [ADDR.kC], sourceChain: 'X' })).utxos,
    onCfromP: (await capi.getUTXOs({ addresses: [ADDR.kC], sourceChain: 'P' })).utxos,
    onXfromC: (await xapi.getUTXOs({ addresses: [ADDR.kX], sourceChain: 'C' })).utxos,
    onPfromC: (await papi.getUTXOs({ addresses: [ADDR.kP], sourceChain: 'C' })).utxos,
  };
  for (const [k, utxos] of Object.entries(atomic)) {
    bal[k] = sumUtxos(utxos).toString();
    bal[`${k}Count`] = utxos.length;
  }
  return bal;
}

async function baseFeeNAVAX() {
  const wei = await capi.getBaseFee(); // eth_baseFee at /ext/bc/C/rpc
  return { wei, nAVAX: (wei + AVAX - 1n) / AVAX };
}

const steps = [];
async function step(name, chain, unsignedTx, keys, extra = {}) {
  await addTxSignatures({ unsignedTx, privateKeys: keys });
  if (!unsignedTx.hasAllSignatures()) throw new Error(`${name}: not fully signed`);
  const signed = unsignedTx.getSignedTx();
  const expectedID = utils.base58check.encode(new Uint8Array(createHash('sha256').update(signed.toBytes()).digest()));
  const api = { X: xapi, P: papi, C: capi }[chain];
  const { txID } = await api.issueSignedTx(signed);
  const status = await waitFor(chain, txID);
  let readBack = null;
  if (chain === 'C') {
    const got = await capi.getAtomicTx({ txID });
    readBack = utils.bufferToHex(got.tx.toBytes()) === utils.bufferToHex(signed.toBytes());
  }
  const burned = utils.getBurnedAmountByTx(unsignedTx.getTx(), context).get(context.avaxAssetID) ?? 0n;
  steps.push({
    name, chain, txID, expectedTxID: expectedID, status, readBack,
    txType: unsignedTx.getTx()._type, burned: burned.toString(), balances: await snapshot(), ...extra,
  });
}

const before = await snapshot();

// 1. X: ewoq → K
{
  const { utxos } = await xapi.getUTXOs({ addresses: [ADDR.ewoqX] });
  const tx = avm.newBaseTx(context, [ewoqBytes], utxos, [TransferableOutput.fromNative(context.avaxAssetID, SEND, [kBytes])]);
  await step('X.BaseTx', 'X', tx, [EWOQ_KEY]);
}
const start = steps[0].balances;

// 2. X → C export
{
  const { utxos } = await xapi.getUTXOs({ addresses: [ADDR.kX] });
  const tx = avm.newExportTx(context, context.cBlockchainID, [kBytes], utxos, [
    TransferableOutput.fromNative(context.avaxAssetID, X_TO_C, [kBytes])]);
  await step('X.ExportTx.to_C', 'X', tx, [K_KEY]);
}

// 3. C import from X
{
  const { utxos } = await capi.getUTXOs({ addresses: [ADDR.kC], sourceChain: 'X' });
  if (utxos.length !== 1) throw new Error(`expected 1 atomic UTXO on C from X, got ${utxos.length}`);
  const fee = await baseFeeNAVAX();
  const tx = evm.newImportTxFromBaseFee(context, kEth, [kBytes], utxos, context.xBlockchainID, fee.nAVAX);
  await step('C.ImportTx.from_X', 'C', tx, [K_KEY], { baseFeeWei: fee.wei.toString() });
}

async function cExport(name, destination, amount) {
  const nonce = BigInt(await rpc('/ext/bc/C/rpc', 'eth_getTransactionCount', [kEthHex, 'latest']));
  const fee = await baseFeeNAVAX();
  const tx = evm.newExportTxFromBaseFee(context, fee.nAVAX, amount, destination, kEth, [kBytes], nonce);
  await step(name, 'C', tx, [K_KEY], { baseFeeWei: fee.wei.toString(), nonce: nonce.toString() });
  steps[steps.length - 1].nonceAfter =
    BigInt(await rpc('/ext/bc/C/rpc', 'eth_getTransactionCount', [kEthHex, 'latest'])).toString();
}

// 4. C → X export, 5. X import from C
await cExport('C.ExportTx.to_X', context.xBlockchainID, C_TO_X);
{
  const { utxos } = await xapi.getUTXOs({ addresses: [ADDR.kX], sourceChain: 'C' });
  if (utxos.length !== 1) throw new Error(`expected 1 atomic UTXO on X from C, got ${utxos.length}`);
  const tx = avm.newImportTx(context, context.cBlockchainID, utxos, [kBytes], [kBytes]);
  await step('X.ImportTx.from_C', 'X', tx, [K_KEY]);
}

// 6. C → P export, 7. P import from C
await cExport('C.ExportTx.to_P', context.pBlockchainID, C_TO_P);
{
  const { utxos } = await papi.getUTXOs({ addresses: [ADDR.kP], sourceChain: 'C' });
  if (utxos.length !== 1) throw new Error(`expected 1 atomic UTXO on P from C, got ${utxos.length}`);
  const feeState = await papi.getFeeState();
  const tx = pvm.e.newImportTx({ feeState, fromAddressesBytes: [kBytes], sourceChainId: context.cBlockchainID,
    toAddressesBytes: [kBytes], utxos }, context);
  await step('P.ImportTx.from_C', 'P', tx, [K_KEY]);
}

// 8. P → C export, 9. C import from P
{
  const { utxos } = await papi.getUTXOs({ addresses: [ADDR.kP] });
  const feeState = await papi.getFeeState();
  const tx = pvm.e.newExportTx({ feeState, fromAddressesBytes: [kBytes], destinationChainId: context.cBlockchainID,
    outputs: [TransferableOutput.fromNative(context.avaxAssetID, P_TO_C, [kBytes])], utxos }, context);
  await step('P.ExportTx.to_C', 'P', tx, [K_KEY]);
}
{
  const { utxos } = await capi.getUTXOs({ addresses: [ADDR.kC], sourceChain: 'P' });
  if (utxos.length !== 1) throw new Error(`expected 1 atomic UTXO on C from P, got ${utxos.length}`);
  const fee = await baseFeeNAVAX();
  const tx = evm.newImportTxFromBaseFee(context, kEth, [kBytes], utxos, context.pBlockchainID, fee.nAVAX);
  await step('C.ImportTx.from_P', 'C', tx, [K_KEY], { baseFeeWei: fee.wei.toString() });
}

console.log(JSON.stringify({
  context: { cBlockchainID: context.cBlockchainID, xBlockchainID: context.xBlockchainID, avaxAssetID: context.avaxAssetID },
  addresses: ADDR,
  amounts: { send: SEND.toString(), xToC: X_TO_C.toString(), cToX: C_TO_X.toString(), cToP: C_TO_P.toString(), pToC: P_TO_C.toString() },
  before,
  start,
  steps,
}));
