"""The client's version: the API's (info.version of api/openapi.yaml), which tests/test_package.py checks."""

__version__ = "1.0.0"

#: The version of the API this client was written against (info.version of api/openapi.yaml).
API_VERSION = "1.0.0"
