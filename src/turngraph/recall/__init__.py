"""Recall: lexical and dense search, fused and bounded; no language model on the read path."""
