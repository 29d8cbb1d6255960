"""The Webhooks API's engine: webhook records and the shared secret in LevelDB (records.py), the
matcher every accepted block goes through, which stages each message in the block's own batch
(engine.py, evm_events.py, primary_events.py), the delivery worker (delivery.py), and what the
node holds of it all (service.py). Its routes are in api/data/webhooks.py."""
