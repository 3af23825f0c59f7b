"""The player side of Atout: experience and levels, skill ratings, profiles, history, replays.

Pure logic (no I/O): ``levels`` (the level curve), ``xp`` (experience points from a record),
``ratings`` (openskill wrapper with fixed bot anchors), ``frames`` (replay frames). The parts
that touch the database and the rooms are ``awards`` (the hook that runs when a match
finishes) and ``service`` (profile, ranking, history, transfer codes). docs/players.md.
"""
