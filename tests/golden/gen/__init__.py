"""The golden generators, one module per group (run them with ../gen.py)."""
