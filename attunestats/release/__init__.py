"""Reading, validating and simulating AttuneBench releases (official JSON format)."""
