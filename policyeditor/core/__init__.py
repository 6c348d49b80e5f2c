"""What every app shares: settings-level middleware, health, backups, rate limits, the engine gate."""
