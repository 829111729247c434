"""From Bolt to a settled ask: the listeners, the intake (each interaction parsed once into a
command, its one phase before the ack, its one handler after), who may answer, and what each
interaction does."""
