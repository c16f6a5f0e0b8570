"""Agreement statistics as plain functions of labels: two-rater and multi-rater
coefficients, estimates with confidence intervals, agreement for a file of labels, and
prediction-powered (PPI++) means that correct a judge's figures with a physician sample.

Imports no study code beyond the import readers; never Textual or the CLI.
"""
