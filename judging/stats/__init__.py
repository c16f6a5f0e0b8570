"""Agreement statistics as plain functions of labels: two-rater and multi-rater
coefficients, estimates with confidence intervals, and agreement for a file of labels.

Imports no study code beyond the import readers; never Textual or the CLI.
"""
