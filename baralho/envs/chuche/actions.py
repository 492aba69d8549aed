"""Chuche's action ids (Discrete(124)); env.py's docstring lists them."""

A_CAPTURE = 0                 # +slot (3): capture with this hand card (then add table cards)
A_PLACE = 3                   # +slot (3): place this hand card on the table (also under Bomba)
A_ADD = 6                     # +kind (36): add a table card of this kind to the capture
A_COMMIT = 42                 # take the capture (sum == target)
A_COMMIT_CORINGA = 43         # take it with a Coringa (sum == target +- 1)
A_BLOCK = 44                  # +kind (36): Bloqueio on a table card of this kind
A_UNBLOCK = 80                # +kind (36): Escudo: unblock a card of this kind reserved by another
A_ROUBAR = 116                # +offset-1 (5): Roubar from the player `offset` seats after you
A_BOMBA = 121                 # play Bomba
A_ESCUDO = 122                # answer Roubar / Bomba with Escudo
A_PASS = 123                  # let the window go by
NUM_ACTIONS = 124
