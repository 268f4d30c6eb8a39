"""HTTP and WebSocket: the wire format, its limits and errors; thin, over the game layer."""
