"""Rodízio: rules engine (rules.py), card data (cards.py), env (env.py), heuristic."""
