"""The adjudication screen: the lead settles disagreements with the review keys."""
