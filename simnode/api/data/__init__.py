"""The Data API and Metrics API (REST, NestJS conventions) served on the node's own port.

Layout: spec.py (the two OpenAPI documents, shipped under openapi/, and the route table),
params.py (parameter validation in class-validator's words), errors.py (NestJS error bodies),
pages.py (page tokens), ratelimit.py (--data-api-rate-limit), resolve.py (what {network},
{chainId} and {blockchainId} name), context.py (what a handler gets), routes.py (handler per
operation), app.py (the request pipeline) and one module per group of handlers (chains.py,
balances.py, health.py; the EVM routes on the index: evm_blocks.py, evm_transactions.py,
evm_addresses.py, evm_balances.py, evm_contracts.py, evm_nfts.py, sharing evm_reads.py for the
chain, index and parameters a request names, evm_json.py for the records' JSON shapes and
nft_metadata.py for token URIs; aggregator.py for the signature aggregator, with icm-services'
`POST /aggregate-signatures`). Handlers read the index (simnode/index) and VM state through the
chains' public methods; nothing below the API imports this package, and server.py imports it on
the first /v1 or /v2 request.
"""
