// Sends AVAX on the X-Chain of a running simnode with avalanchejs 5.2.0, as a wallet would:
// context from the node (info, avm.getAssetDescription, avm.getTxFee, platform.getFeeConfig),
// UTXOs from avm.getUTXOs, avm.newBaseTx + addTxSignatures, avm.issueTx, then wait for acceptance.
// Usage: node xchain_send.mjs <baseURL> <toAddress> <amount nAVAX>   (prints one JSON line)
import { avm, pvm, Context, utils, addTxSignatures, TransferableOutput } from '@avalabs/avalanchejs';

const [baseURL, to, amount] = process.argv.slice(2);
const EWOQ_KEY = utils.hexToBuffer('0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027');
const EWOQ = 'X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u';

const context = await Context.getContextFromURI(baseURL);
const feeState = await new pvm.PVMApi(baseURL).getFeeState();
const api = new avm.AVMApi(baseURL);
const { utxos } = await api.getUTXOs({ addresses: [EWOQ] });
const tx = avm.newBaseTx(context, [utils.bech32ToBytes(EWOQ)], utxos, [
  TransferableOutput.fromNative(context.avaxAssetID, BigInt(amount), [utils.bech32ToBytes(to)]),
]);
await addTxSignatures({ unsignedTx: tx, privateKeys: [EWOQ_KEY] });
const signed = tx.getSignedTx();
const { txID } = await api.issueSignedTx(signed);

async function status() {
  const res = await fetch(`${baseURL}/ext/bc/X`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'avm.getTxStatus', params: { txID } }),
  });
  return (await res.json()).result.status;
}
const deadline = Date.now() + 10000;
while ((await status()) !== 'Accepted') {
  if (Date.now() > deadline) throw new Error(`tx ${txID} not accepted`);
  await new Promise((r) => setTimeout(r, 20));
}
console.log(JSON.stringify({
  txID,
  networkID: context.networkID,
  xBlockchainID: context.xBlockchainID,
  avaxAssetID: context.avaxAssetID,
  baseTxFee: context.baseTxFee.toString(),
  feeStatePrice: feeState.price.toString(),
  utxosSeen: utxos.length,
}));
