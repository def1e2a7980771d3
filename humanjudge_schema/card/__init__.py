"""Croissant dataset cards from the data (`humanjudge card`): a Croissant 1.0 JSON-LD document per
dataset whose Responsible-AI fields are computed from the judgments (build.py, rai.py), and the
check of a card, written by anyone, against the data it describes (check.py, codes card/*).

Neither needs mlcroissant: a card is JSON written and read with the standard library.
"""
