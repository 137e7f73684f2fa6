"""A lecture note itself: its statements found (source), their mathematics read into the claim
language (latex), a draft claim file written from them (draft), and the note shown back with a
verdict beside each statement (annotate)."""
