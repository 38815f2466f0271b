"""The package version, read by the build backend and by `tilec --version`."""

__version__ = "0.1.0"
