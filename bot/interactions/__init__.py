"""From Bolt to a settled ask: the listeners, the inbox, who may answer and what each interaction does."""
