"""Duplicate tournaments (docs/tournaments.md): every table plays the same boards, and each
result is compared with the others on the same board, in matchpoints.

* ``scoring``: matchpoints and standings (pure);
* ``swiss``: the live duplicate Swiss for pairs' rules: pairing a round (networkx), a
  board's matchpoints, absences, victory points, byes and the standings (pure);
* ``boards``: the boards' seeded decks, the house players' level and version, the datum
  table's play and a finished table's result and double-dummy par (pure: they run in the
  bots' worker processes);
* ``store``: the tournament tables' reads and writes (functions of a Session);
* ``service``: ``Tournaments``, what the web layer calls: create, enter, play a board, the
  secrecy rules, the traveller and the standings, the daily events, the exports.

A tournament board is an ordinary game (app/rooms) created with the board's deck and dealer,
the house players seated, and ``settings.board`` set: the game is that one deal.
"""
