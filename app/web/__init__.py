"""The web layer: HTML pages, JSON API, WebSocket."""
