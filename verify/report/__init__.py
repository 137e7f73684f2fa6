"""Everything people and CI tools read, built from findings or from results.json: results.json
and the terminal table (verify.report.results), report.md, junit, SARIF, GitHub annotations and
index.html (verify.report.artefacts), a claim's result in words (verify.report.claim_text) and
progress bars (verify.report.progress), and the command line's help and one-line errors
(verify.report.command_line)."""
