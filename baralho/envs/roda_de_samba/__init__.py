"""Roda de Samba: set collection around a circular tableau (see RULES.md)."""
