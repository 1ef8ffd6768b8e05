"""Artefacts: the registry of every table and figure, and ``attunestats reproduce``.

May import every other layer except ``cli``.
"""
