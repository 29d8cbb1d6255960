"""The JSON-RPC envelope library every service uses: AvalancheGo's gorilla envelope and
go-ethereum's (jsonrpc.py), and gorilla's typed params (params.py). It sits below the VMs:
it knows no chain, and VM services build on it."""
