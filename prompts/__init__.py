"""The judges' prompt templates, one text file per task and version (data only: read as package
data, never imported from).
"""
