from tests.web.conftest import module_server, start_server  # noqa: F401  (shared fixtures)
