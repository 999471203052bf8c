"""Ghost-text completion: gate → context → prompt → cache → backend stream → filters (DESIGN §3)."""
