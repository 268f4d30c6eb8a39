"""Serving: the command line, the worker processes and the door in front of them."""
