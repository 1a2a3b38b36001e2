"""Robustness: failures, crashes and abuse, against the real stack."""
