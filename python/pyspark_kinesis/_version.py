"""The package version; it follows the connector jar's (``X.Y.Z.devN`` is ``X.Y.Z-SNAPSHOT``)."""

__version__ = "0.1.0.dev0"
