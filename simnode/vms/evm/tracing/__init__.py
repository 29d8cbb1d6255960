"""Tracing of EVM executions: the hooks a tracer runs on (hooks.py), the call frames recorded
while a block executes (block_frames.py) and the debug_trace* methods (debug_trace.py)."""
