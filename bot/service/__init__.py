"""`python -m bot` as a service: the HTTP server, the relay API, its OpenAPI document, readiness."""
