"""Disturbance loads: their kinds and ``--load`` specs (kinds), and running them on a target (session)."""
