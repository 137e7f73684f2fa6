"""A lecture note itself: its statements found (source), their LaTeX parsed (latex) and read into
the claim language through a notation table (reading), a draft claim file written from them
(draft), and the note shown back with a verdict beside each statement (annotate)."""
