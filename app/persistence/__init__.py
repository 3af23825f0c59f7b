"""Storage: SQLAlchemy models, sessions, migrations. No game logic lives here."""
