"""`lp lsp`: LP's Language Server (pygls over stdio). `server.py` wires the features together."""
