"""Eval items that leak into a corpus: exact word 3-gram containment.

``words.py`` defines the tokenisation (and tokenises many texts at once), ``records.py`` reads
the JSON Lines files (BEIR's ``corpus.jsonl`` and ``queries.jsonl`` layouts), and
``containment.py`` finds, for every eval item, the corpus document containing most of its
3-grams, exactly (:func:`prfeval._leakage.containment.find_leaks`).
"""
