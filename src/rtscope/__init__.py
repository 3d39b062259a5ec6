"""rtscope: measure how well an operating system serves real-time work.

This package is the analyzer: it runs the C probe as a worker process, validates and stores the result
documents the probe writes, and shows them.
"""

__version__ = "0.1.0"
